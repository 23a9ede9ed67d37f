// End to end in Debian's Chromium against a real `rho`: the work panels (Runs with cancel, retry and the requirements
// check; Agent; Media with a PDF, PNG, JPEG and SVG), axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_work.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID, RHO_AGENT_TOKEN
// (a real grant of session claude-code), RHO_OPERATOR_TOKEN (to make a grant that expires), RHO_PROJECT_DIR, RHO_ARTIFACTS. The project holds analysis.R
// (prints six lines half a second apart) and report.pdf (two pages). Prints one JSON line of facts;
// exits 1 on any failure.
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { agentCaller, kit } from "./support/kit.mjs";

const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const token = need("RHO_AGENT_TOKEN");
const artifacts = need("RHO_ARTIFACTS");
const projectDir = need("RHO_PROJECT_DIR");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
/** A run and pdf.js take longer than typing: 20 s unless said. */
const until = (what, f, ms = 20000) => waitFor(what, f, ms);

/** One call as the Agent, through its real grant; a refusal throws with its `code`. */
const agent = agentCaller(url, token, projectId);
/** The operator's token (as `rho --grant` uses it), to make a grant that expires during the test. */
const operatorToken = need("RHO_OPERATOR_TOKEN");

/** Brings a panel forward: a dockview tab at 1600, a strip tab at 390. */
async function show(page, title) {
  const strip = page.getByRole("tablist", { name: "Open panels" });
  if (await strip.isVisible().catch(() => false)) await page.getByRole("tab", { name: title, exact: true }).click();
  else await page.locator(".dv-tab", { hasText: new RegExp(`^${title.replace(".", "\\.")}$`) }).click();
}

const text = (page, id) => page.getByTestId(id).textContent();

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  // Images for the media panel, made by Chromium itself before the app loads (a PNG and a JPEG of
  // a drawn page, exact sizes), an SVG with an absolute size and one with only a viewBox.
  {
    const maker = await browser.newPage({ viewport: { width: 400, height: 300 } });
    await maker.setContent('<body style="margin:0;background:#fff"><div style="position:absolute;left:60px;top:40px;width:160px;height:120px;background:#c33"></div><div style="position:absolute;left:230px;top:150px;width:120px;height:100px;background:#36c"></div></body>');
    await maker.screenshot({ path: join(projectDir, "chart.png"), type: "png", clip: { x: 0, y: 0, width: 320, height: 200 } });
    await maker.screenshot({ path: join(projectDir, "photo.jpg"), type: "jpeg", quality: 80, clip: { x: 0, y: 0, width: 400, height: 300 } });
    await maker.close();
    writeFileSync(join(projectDir, "diagram.svg"), '<svg xmlns="http://www.w3.org/2000/svg" width="300" height="200"><rect x="20" y="20" width="120" height="80" fill="#2a7"/><circle cx="220" cy="120" r="50" fill="#a27"/></svg>\n');
    writeFileSync(join(projectDir, "loose.svg"), '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 30 20"><rect width="30" height="20" fill="#777"/></svg>\n');
  }

  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "work");
  // Media bytes come by the plain GET of a version (not base64 through resource.read).
  const byteReplies = [];
  page.on("response", (r) => /\/api\/v2\/projects\/[^/]+\/resources\/[^/]+\/\d+$/.test(r.url()) && byteReplies.push(r.status()));
  await page.goto(`${url}/`);
  const content = page.locator(".cm-content");
  await content.waitFor({ timeout: 20000 });
  await until("the script in the editor", async () => (await content.textContent()).includes("Sys.sleep"), 20000);

  // The person types an unsaved line and runs the buffer: one action, the exact version.
  await content.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type('\ncat("typed, unsaved\\n")');
  await page.getByRole("button", { name: "Run this script" }).click();
  const stdout = page.getByTestId("log-stdout");
  await stdout.waitFor({ timeout: 20000 });
  await until("the first line in the live log", async () => (await stdout.textContent()).includes("line 1"), 30000);
  const early = await stdout.textContent();
  facts.log_while_running = early;
  check(!early.includes("typed, unsaved"), "the log was shown while the run was still going (followed, not read at the end)");
  await until("the log grows to the end", async () => (await stdout.textContent()).includes("typed, unsaved"), 30000);
  await until("the stderr log", async () => (await text(page, "log-stderr")).includes("to stderr"));
  const shown = await stdout.textContent();
  check((shown.match(/line 1 /g) ?? []).length === 1, "each line shows once (only new text is appended)");
  await until("the run is finished", async () => (await page.locator(".run-details h2").textContent()).includes("finished"));
  const runs = await agent("action.list", {});
  facts.operationId = runs.runs[0]?.operationId ?? null;

  // Export with the unsaved-buffer choice.
  await page.getByLabel("If the script has unsaved editor changes").selectOption("include");
  await page.getByRole("button", { name: "Export", exact: true }).click();
  await until("the export", async () => (await text(page, "exported")).includes("Exported to"));
  const folder = (await page.getByTestId("exported").locator("code").textContent()).trim();
  facts.exportFolder = folder;
  check((await text(page, "exported")).includes("unsaved editor text"), "the export took the unsaved buffer by the person's choice");
  check(existsSync(join(projectDir, folder)), `the export folder ${folder} exists`);
  await page.getByRole("button", { name: "Check artifacts" }).click();
  await until("the artifact check", async () => (await text(page, "artifact-check")).length > 0);
  await axe(page, "runs_1600");
  await noOverflow(page, "runs_1600");
  await page.screenshot({ path: join(artifacts, "runs-1600x900.png") });

  // Cancel a second run while it runs; Retry of the stopped run answers its record and runs nothing
  // again (only a run that was never sent is delivered by a retry); the requirements check probes R.
  await show(page, "analysis.R");
  await page.getByRole("button", { name: "Run this script" }).click();
  await until("the second run is running", async () => (await page.locator(".run-details h2").textContent()).includes("running"), 30000);
  const second = (await agent("action.list", {})).runs.find((r) => r.operationId !== facts.operationId)?.operationId;
  await page.getByRole("button", { name: "Cancel", exact: true }).click();
  await until("the run is stopped, by whom", async () => (await page.locator(".run-details h2").textContent()).includes("stopped by local"), 30000);
  const stopped = await agent("action.observe", { operationId: second });
  facts.cancelled = { execution: stopped.execution, stop: stopped.stop };
  check(stopped.stop?.requestedBy === "local", `the stop names the person who asked: ${JSON.stringify(stopped.stop)}`);
  check(!(await stdout.textContent()).includes("line 6"), "the cancelled run did not print to its end");
  await page.getByRole("button", { name: "Retry", exact: true }).click();
  await until("the retry is answered, saying nothing runs again", async () => (await text(page, "run-note")).includes("sent already, so nothing runs again"));
  const after = await agent("action.list", {});
  check(after.runs.length === 2, `a retry of a sent run starts nothing new: ${after.runs.length} runs`);
  check((await agent("action.observe", { operationId: second })).execution === "exited", "the retried run stays as it ended");
  await page.getByLabel("Packages (comma or space separated; name>=version for a minimum)").fill("stats, rhonopkgzz>=1.0");
  await page.getByRole("button", { name: "Check", exact: true }).click();
  await until("the requirements probe", async () => (await page.locator(".runs").textContent()).includes("rhonopkgzz: missing"), 60000);
  const probe = await page.locator(".runs").textContent();
  check(/stats: present \d/.test(probe) && probe.includes("Not satisfied"), `the probe says stats is there and the other is not: ${probe.slice(-300)}`);
  await axe(page, "runs_cancelled_1600");
  await page.screenshot({ path: join(artifacts, "runs-cancel-retry-1600x900.png") });


  // The PDF in the media panel: registered by choice, page 2, a rectangle drawn, then the context.
  await show(page, "Projects");
  await page.getByRole("button", { name: /^report\.pdf/ }).click();
  await page.getByRole("button", { name: "Register it as PDF media" }).click();
  const canvas = page.locator(".media-stage canvas");
  await canvas.waitFor({ timeout: 20000 });
  check(byteReplies.some((s) => s === 200 || s === 206), `the PDF's bytes came by GET: ${JSON.stringify(byteReplies)}`);
  facts.byte_replies = byteReplies;
  await page.getByRole("button", { name: "Next page" }).click();
  await until("page 2 is drawn", async () => (await canvas.getAttribute("aria-label")).includes("page 2 of 2, 792 by 612 pt"));
  await until("the canvas has its size", async () => ((await canvas.boundingBox())?.width ?? 0) > 100);
  const b = await canvas.boundingBox();
  await page.mouse.move(b.x + b.width * 0.25, b.y + b.height * 0.25);
  await page.mouse.down();
  await page.mouse.move(b.x + b.width * 0.5, b.y + b.height * 0.6, { steps: 5 });
  await page.mouse.up();
  const num = async (f) => Number(await page.getByTestId(`rect-${f}`).inputValue());
  await until("the drawn rectangle in the form", async () => (await num("width")) > 0);
  // The keyboard alternative moves it one step right.
  const x0 = await num("x");
  await page.getByTestId("rect-keys").focus();
  await page.keyboard.press("ArrowRight");
  await until("the arrow key moved the rectangle", async () => (await num("x")) > x0);
  const rect = { x: await num("x"), y: await num("y"), width: await num("width"), height: await num("height") };
  facts.rect = rect;
  check(Math.abs(rect.x - 198 - 8) < 4 && Math.abs(rect.width - 198) < 4, `the rectangle is in points of the 792 pt page: ${JSON.stringify(rect)}`);
  await page.getByRole("button", { name: "Point the Agent at this rectangle" }).click();
  await until("the context is made", async () => (await text(page, "context-made")).startsWith("Context "));
  const contextId = (await text(page, "context-made")).match(/^Context (\S+):/)?.[1] ?? null;
  facts.contextId = contextId;
  // The Agent finds it: context.read through its own grant.
  const read = await agent("context.read", { contextId });
  check(read.media?.units === "pt" && read.media?.page === 2, `the Agent reads the rectangle in pt on page 2: ${JSON.stringify(read.media)}`);
  const same = ["x", "y", "width", "height"].every((k) => read.media?.rect?.[k] === rect[k]);
  check(same, `the Agent reads the rectangle the form shows: ${JSON.stringify(read.media?.rect)} vs ${JSON.stringify(rect)}`);
  await axe(page, "media_1600");
  await noOverflow(page, "media_1600");
  await page.screenshot({ path: join(artifacts, "media-1600x900.png") });

  // PNG, JPEG and SVG: registered by choice, shown with alt text from the media facts, a typed
  // rectangle in pixels read back by the Agent; an SVG without an absolute size takes none.
  for (const [name, label, w, h] of [
    ["chart.png", "PNG", 320, 200],
    ["photo.jpg", "JPEG", 400, 300],
    ["diagram.svg", "SVG", 300, 200],
  ]) {
    await show(page, "Projects");
    await page.getByRole("button", { name: new RegExp(`^${name.replace(".", "\\.")}`) }).click();
    await page.getByRole("button", { name: `Register it as ${label} media` }).click();
    const img = page.getByRole("img", { name: `${name}, a ${label} image, ${w} by ${h} px` });
    await img.waitFor({ timeout: 20000 });
    await until(`${name} is drawn`, () => img.evaluate((el) => el.complete && el.naturalWidth > 0));
    facts[`${name}_natural`] = await img.evaluate((el) => [el.naturalWidth, el.naturalHeight]);
    check(JSON.stringify(facts[`${name}_natural`]) === JSON.stringify([w, h]), `${name} decodes at ${w} x ${h}: ${facts[`${name}_natural`]}`);
    const r = { x: 10, y: 20, width: Math.floor(w / 2), height: Math.floor(h / 3) };
    for (const [k, v] of Object.entries(r)) await page.getByTestId(`rect-${k}`).fill(String(v));
    await page.getByRole("button", { name: "Point the Agent at this rectangle" }).click();
    await until(`${name}: the context is made`, async () => (await text(page, "context-made")).includes(`${r.x}, ${r.y}, ${r.width} x ${r.height} px`));
    const id = (await text(page, "context-made")).match(/^Context (\S+):/)?.[1] ?? null;
    const got = await agent("context.read", { contextId: id });
    check(got.media?.units === "px" && ["x", "y", "width", "height"].every((k) => got.media?.rect?.[k] === r[k]), `${name}: the Agent reads the rectangle in px: ${JSON.stringify(got.media)}`);
    await axe(page, `media_${label.toLowerCase()}_1600`);
    await noOverflow(page, `media_${label.toLowerCase()}_1600`);
    await page.screenshot({ path: join(artifacts, `media-${label.toLowerCase()}-1600x900.png`) });
  }
  await show(page, "Projects");
  await page.getByRole("button", { name: /^loose\.svg/ }).click();
  await page.getByRole("button", { name: "Register it as SVG media" }).click();
  await page.getByRole("img", { name: "loose.svg, a SVG image, no absolute size" }).waitFor({ timeout: 20000 });
  await until("an SVG without a size says a rectangle cannot be measured", async () => (await page.locator(".media").textContent()).includes("has no absolute size"));
  check((await page.getByRole("button", { name: "Point the Agent at this rectangle" }).count()) === 0, "no rectangle on an SVG without a size");

  // The Agent tab: the grant with its latest call, then revoked.
  await agent("project.entries", {});
  await show(page, "Agent");
  const card = page.getByTestId("agent-claude-code");
  await card.waitFor({ timeout: 20000 });
  await until("the Agent's latest call is shown", async () => (await card.textContent()).includes("latest call"));
  await until("the activity feed has the Agent's calls", async () => (await text(page, "activity")).includes("agent:claude-code"));
  check((await text(page, "mcp-entry")).includes('"--mcp"'), "the MCP entry to copy is shown");
  check(!/rho_[A-Za-z0-9]{20,}|Bearer/.test(await page.locator(".agent").textContent()), "the panel shows no credential");
  await axe(page, "agent_1600");
  await noOverflow(page, "agent_1600");
  await page.screenshot({ path: join(artifacts, "agent-1600x900.png") });

  // A grant that expires while the panel is open is announced (role=status), not silently dropped.
  const expiresAt = new Date(Date.now() + 8000).toISOString();
  const granted = await fetch(`${url}/api/v2/session.grant`, {
    method: "POST",
    headers: { Authorization: `Bearer ${operatorToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ projectId, session: "short-lived", expiresAt }),
  }).then((r) => r.json());
  check(granted.ok, `the short grant: ${JSON.stringify(granted.error ?? null)}`);
  await until("the short grant is listed", async () => (await page.getByTestId("agent-short-lived").count()) === 1, 15000);
  const expiry = page.getByTestId("expiry-note");
  check((await expiry.getAttribute("role")) === "status", "the expiry note is a status region");
  await until("the expiry is announced", async () => /has expired at .*no longer works/.test(await expiry.textContent()), 30000);
  facts.expiry_note = await expiry.textContent();
  facts.expiry_announced_late_ms = Date.now() - Date.parse(expiresAt);
  await page.screenshot({ path: join(artifacts, "agent-expired-1600x900.png") });

  // 390 px: each work panel in the strip, no overflow, axe.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  for (const [title, name] of [["Runs", "runs"], ["report.pdf", "media"], ["Agent", "agent"]]) {
    await show(page, title);
    await page.waitForTimeout(300);
    await noOverflow(page, `${name}_390`);
    await axe(page, `${name}_390`);
    await page.screenshot({ path: join(artifacts, `${name}-390x844.png`), fullPage: true });
  }

  // Revoke: the card goes and the credential stops working.
  await page.getByRole("button", { name: "Revoke claude-code" }).click();
  await until("the revoke is said", async () => (await text(page, "agents-note")).includes("Revoked claude-code"));
  await until("the card is gone", async () => (await page.getByTestId("agent-claude-code").count()) === 0);
  const refused = await agent("project.entries", {}).then(
    () => null,
    (e) => e.code,
  );
  check(refused === "unauthorized", `the revoked grant is refused (${refused})`);
  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
}

finish();
