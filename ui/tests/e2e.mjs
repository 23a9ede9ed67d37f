// End to end in Debian's Chromium against a real `rho`: open the project, type, an IME composition, an Agent edit shows live, axe, overflow at 1600, 700 and 390 and across a resize, a dropped event stream catching up, the access screen.
//
// Run by tests/it/chromium/ui.rs with the pinned Node. Environment: RHO_URL (http://127.0.0.1:PORT),
// RHO_PROJECT_ID, RHO_AGENT_TOKEN (a real grant's bearer), RHO_FILE (the script to edit),
// RHO_PROJECT_DIR (its folder, to check saves and change the file behind Rho's back),
// RHO_ARTIFACTS (screenshots go there). Prints one JSON line of facts; exits 1 on any failure.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { agentCaller, kit } from "./support/kit.mjs";

const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const token = need("RHO_AGENT_TOKEN");
const file = need("RHO_FILE");
const artifacts = need("RHO_ARTIFACTS");
const projectDir = need("RHO_PROJECT_DIR");
mkdirSync(artifacts, { recursive: true });

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

const { failures, facts, finish, check, until, axe, noOverflow, watch } = kit();

/** One call as the Agent, through its real grant; a refusal throws with its `code`. */
const agent = agentCaller(url, token, projectId);

/** The Agent inserts `text` at the start of the file, retrying on `stale` like any writer. */
async function agentEdit(text) {
  const doc = await agent("document.open", { path: file });
  for (let i = 0; i < 10; i++) {
    const now = await agent("document.read", { documentId: doc.id });
    try {
      return await agent("document.edit", {
        documentId: doc.id,
        expectedVersion: now.version,
        changeId: `e2e-agent-${Date.now()}-${i}`,
        edits: [{ start: 0, end: 0, text }],
      });
    } catch (e) {
      if (e.code !== "stale") throw e;
    }
  }
  throw new Error("the Agent's edit stayed stale");
}

async function serverText() {
  const doc = await agent("document.open", { path: file });
  return (await agent("document.read", { documentId: doc.id })).text;
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  // Every document.edit the tab sends, by fetch or over the calls socket (decision 0418).
  const sentEdits = [];
  let socketEdits = 0;
  page.on("request", (r) => r.url().endsWith("/api/v2/document.edit") && sentEdits.push(r.postDataJSON()));
  page.on("websocket", (ws) =>
    ws.on("framesent", (f) => {
      const m = typeof f.payload === "string" ? JSON.parse(f.payload) : null;
      if (m?.op === "document.edit") socketEdits += sentEdits.push(m.body) && 1;
    }),
  );
  watch(page, "local");
  const t0 = Date.now();
  await page.goto(`${url}/`);
  await page.getByTestId("who").waitFor();
  check((await page.getByTestId("who").textContent()).includes("Local browser"), "the app says it is the local browser");
  const content = page.locator(".cm-content");
  await content.waitFor({ timeout: 15000 });
  facts.first_editor_ms = Date.now() - t0;
  await until("the script's text in the editor", async () => (await content.textContent()).includes("read.csv"));
  check((await page.locator(".dv-groupview").count()) >= 2, "dockview shows two groups at 1600 px");

  // The person types at the end of the file; the service has it (durably acknowledged).
  await content.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n# typed by the person 😀 ");
  await until("the person's typing reaches the service", async () => (await serverText()).includes("# typed by the person 😀 "));

  // An input method in Chromium (CDP's own IME path, as a Japanese keyboard drives it): while the
  // composition is open the editor shows it and sends nothing; committing sends the composed text
  // once. The binding re-checks a composition every 100 ms, so half a second with nothing sent is
  // five chances to have sent it.
  const cdp = await context.newCDPSession(page);
  await until("nothing left to send before the composition", async () => !(await page.getByTestId("editor-status").textContent()).includes("sending"));
  const beforeIme = sentEdits.length;
  for (const [text, at] of [["に", 1], ["にほ", 2], ["にほん", 3], ["日本", 2]]) {
    await cdp.send("Input.imeSetComposition", { text, selectionStart: at, selectionEnd: at });
  }
  await until("the composition shows in the editor", async () => (await content.textContent()).includes("😀 日本"));
  await page.waitForTimeout(500);
  facts.ime_sent_while_composing = sentEdits.length - beforeIme;
  check(sentEdits.length === beforeIme, `nothing is sent while composing: ${JSON.stringify(sentEdits.slice(beforeIme))}`);
  await cdp.send("Input.insertText", { text: "日本" });
  await until("the composed text reaches the service", async () => (await serverText()).includes("😀 日本"));
  const imeEdits = sentEdits.slice(beforeIme).flatMap((b) => b.edits.map((e) => e.text));
  facts.ime_edits = imeEdits;
  check(imeEdits.join("") === "日本", `the composed text is sent once, and only it: ${JSON.stringify(imeEdits)}`);
  check(((await serverText()).match(/日本/g) ?? []).length === 1, "the service holds the composed text once");
  facts.edits_over_the_calls_socket = socketEdits;
  check(socketEdits > 0, "the editor's edits travel on the calls socket once it is open");
  await cdp.detach();

  // An Agent edit through the real grant shows live in the open tab, attributed.
  const sent = Date.now();
  await agentEdit("# the Agent was here\n");
  await until("the Agent's edit shows in the tab", async () => (await content.textContent()).includes("# the Agent was here"));
  facts.agent_edit_visible_ms = Date.now() - sent;
  check((await page.locator(".cm-foreign-edit").count()) > 0, "the Agent's text is marked as another author's");
  await until("the status names the Agent", async () => /last change by agent:/.test(await page.getByTestId("editor-status").textContent()));
  const shown = await content.evaluate((el) => el.cmView?.view?.state?.doc?.toString() ?? null);
  const server = await serverText();
  if (shown !== null) check(shown === server, "the editor and the service hold the same text");

  await axe(page, "1600");
  await noOverflow(page, "1600");
  await page.screenshot({ path: join(artifacts, "app-1600x900.png") });

  // Shared undo: Ctrl+Z reverts the newest change of any author (the Agent's) and says whose.
  await content.click();
  await page.keyboard.press("Control+z");
  await until("undo reverts the Agent's line", async () => !(await content.textContent()).includes("# the Agent was here"));
  await until("undo says whose change it reverted", async () => (await page.locator(".note").textContent().catch(() => "")).includes("agent:claude-code"));
  check(!(await serverText()).includes("# the Agent was here"), "the service's buffer lost the Agent's line too");

  // Save: the disk gets the buffer.
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await until("the save is acknowledged", async () => (await page.locator(".note").textContent().catch(() => "")).startsWith("Saved version"));
  check(readFileSync(join(projectDir, file), "utf8") === (await serverText()), "the saved file is the buffer");

  // A save over a file changed behind Rho's back is a conflict with an explicit overwrite choice.
  writeFileSync(join(projectDir, file), "changed outside Rho\n");
  await content.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n# after the outside change");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  const conflict = page.locator(".conflict");
  await conflict.waitFor({ timeout: 10000 });
  check((await conflict.textContent()).includes("changed on disk"), "the conflict says the disk changed");
  await page.screenshot({ path: join(artifacts, "save-conflict-1600x900.png") });
  await page.getByRole("button", { name: "Overwrite the file on disk" }).click();
  await until("the overwrite is saved", async () => (await page.locator(".note").textContent().catch(() => "")).startsWith("Saved version"));
  check(readFileSync(join(projectDir, file), "utf8") === (await serverText()), "the overwrite wrote the buffer");

  // The project view's first render, warm (median of 5 reloads): the files list and the editor's text,
  // against a debug `rho`.
  const loads = [];
  for (let i = 0; i < 5; i++) {
    const start = Date.now();
    await page.reload();
    await page.getByRole("button", { name: /^analysis\.R/ }).waitFor();
    await content.waitFor();
    loads.push(Date.now() - start);
  }
  loads.sort((x, y) => x - y);
  facts.first_render_ms = loads;
  facts.first_render_median_ms = loads[2];
  // Measured, not yet enforced: the 500 ms budget is not met (decision 0401 has the figures).
  facts.first_render_budget_met = loads[2] < 500;

  // A phone-sized window: one tab strip, no horizontal overflow, still accessible.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await page.getByRole("tab", { name: file }).click();
  await content.waitFor();
  await noOverflow(page, "390");
  await axe(page, "390");
  await page.screenshot({ path: join(artifacts, "app-390x844.png") });
  await page.getByRole("tab", { name: "Projects" }).click();
  await noOverflow(page, "390_projects");
  await axe(page, "390_projects");
  await page.screenshot({ path: join(artifacts, "app-390x844-projects.png") });

  // And back: the docked layout again.
  await page.setViewportSize({ width: 1600, height: 900 });
  await page.locator(".dv-groupview").first().waitFor();
  check((await page.locator(".dv-groupview").count()) >= 2, "dockview again after 390 -> 1600");

  // A resize pass, 1600 -> 700 -> 1600: below 768 px one tab strip whose panels still work (the
  // editor shows the buffer, the files list opens), no horizontal overflow; back at 1600 the same
  // groups with the same tabs as before.
  const groupsOf = () =>
    page.evaluate(() => [...document.querySelectorAll(".dv-groupview")].map((g) => [...g.querySelectorAll(".dv-tab")].map((t) => t.textContent?.trim()).join("|")));
  await until("the docked groups settle at 1600", async () => (await groupsOf()).length >= 2);
  const docked = await groupsOf();
  facts.groups_1600 = docked;
  await page.setViewportSize({ width: 700, height: 900 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await page.getByRole("tab", { name: file }).click();
  await until("the editor shows the buffer at 700 px", async () => (await content.textContent()).includes("read.csv"));
  await noOverflow(page, "700");
  await page.screenshot({ path: join(artifacts, "app-700x900.png") });
  await page.getByRole("tab", { name: "Projects" }).click();
  await page.getByRole("button", { name: /^analysis\.R/ }).click();
  await until("the file opens from the list at 700 px", async () => (await page.getByRole("tab", { name: file, selected: true }).count()) === 1);
  await noOverflow(page, "700_files");
  await axe(page, "700");
  await page.setViewportSize({ width: 1600, height: 900 });
  await until("the same groups and tabs again at 1600 px", async () => JSON.stringify(await groupsOf()) === JSON.stringify(docked));
  facts.groups_after_resize = await groupsOf();
  await noOverflow(page, "1600_after_resize");
  await until("the editor still shows the buffer after the resize", async () => (await content.textContent()).includes("read.csv"));

  // A dropped connection (the service's end of every connection to its port reset with `ss -K`):
  // the stream errors and the browser reconnects by itself with Last-Event-ID; an Agent edit
  // made while it was down shows after the reconnect, without a reload. The Agent then takes its
  // line out again, so the buffer ends as the test expects.
  const offline = "# written while the stream was down\n";
  const port = new URL(url).port;
  // The live indicator is watched, so the test knows the stream really dropped.
  await page.evaluate(() => {
    window.__dropped = false;
    const live = document.querySelector("header .live");
    new MutationObserver(() => {
      if (live?.textContent === "Reconnecting…") window.__dropped = true;
    }).observe(live, { childList: true, characterData: true, subtree: true });
  });
  execFileSync("ss", ["-K", "-tn", `( sport = :${port} )`], { stdio: "ignore" });
  // The reset also closed this script's own pooled connection to the service, and a request
  // that undici sends on it before it sees the reset fails unsent ("fetch failed", no envelope).
  // Open the document again (which changes nothing) until a fresh connection answers; the edit
  // itself then is sent once.
  for (let i = 0; ; i++) {
    try {
      await agent("document.open", { path: file });
      break;
    } catch (e) {
      if (e.code || i >= 3) throw e;
    }
  }
  await agentEdit(offline);
  const back = Date.now();
  await until("the tab saw its stream drop", () => page.evaluate(() => window.__dropped === true), 10000);
  await until("the edit made while the stream was down shows after it reconnects", async () => (await content.textContent()).includes(offline.trim()), 20000);
  facts.caught_up_after_drop_ms = Date.now() - back;
  await until("the tab is live again", async () => (await page.locator("header .live.on").count()) === 1);
  const doc = await agent("document.open", { path: file });
  const now = await agent("document.read", { documentId: doc.id });
  check(now.text.startsWith(offline), "the edit made while the stream was down is first in the buffer");
  await agent("document.edit", { documentId: doc.id, expectedVersion: now.version, changeId: `e2e-drop-out-${Date.now()}`, edits: [{ start: 0, end: offline.length, text: "" }] });
  await until("the tab shows the line taken out", async () => !(await content.textContent()).includes(offline.trim()));

  // A bad pairing cookie gets the access screen, never a silent widening.
  const bad = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const host = new URL(url);
  await bad.addCookies([{ name: "rho_pair", value: "forged", domain: host.hostname, path: "/" }]);
  const badPage = await bad.newPage();
  watch(badPage, "bad-cookie");
  await badPage.goto(`${url}/`);
  await badPage.getByRole("heading", { name: "This tab has no access to Rho" }).waitFor();
  check((await badPage.getByRole("alert").textContent()).includes("rho --pair"), "the access screen says what to do");
  await axe(badPage, "access");
  await badPage.screenshot({ path: join(artifacts, "access-screen.png") });
  await bad.close();
  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
}

finish();
