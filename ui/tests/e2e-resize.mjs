// End to end across a resize in Debian's Chromium against a real `rho`: at 1600 px, at 700 px (the tab strip) and
// at 1600 px again, the same checks: a live Agent edit, shared undo, table paging, a table selection, a PDF
// rectangle read back by the Agent, a run's log followed; axe and no horizontal overflow at each width; the
// docked groups come back after the strip; a bad pairing cookie's access screen at 700 px.
//
// Run by tests/it/chromium/ui_resize.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID,
// RHO_ROWS (rows of big.csv: key `k` + 6 digits), RHO_ARTIFACTS, and the Agent's MCP client
// (RHO_MCP_PYTHON, RHO_MCP_CLIENT, RHO_BIN, RHO_MCP_FILE). The project holds analysis.R (prints
// `line 1..4` with pauses), big.csv (a registered keyed table, namespace big) and report.pdf
// (registered PDF media, 612 x 792 pt). Prints one JSON line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { mcpAgent } from "./support/mcpAgent.mjs";
import { inChromium, kit, need, showPanel } from "./support/kit.mjs";

const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const ROWS = Number(need("RHO_ROWS"));
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
const until = (what, f, ms = 20000) => waitFor(what, f, ms);
const lastKey = `k${String(ROWS - 1).padStart(6, "0")}`;

const agent = await mcpAgent(["document.open", "document.read", "document.edit", "context.read"]);
const file = "analysis.R";
let docId = null;
const serverText = async () => {
  docId ??= (await agent("document.open", { path: file })).id;
  return (await agent("document.read", { documentId: docId })).text;
};

/** The service as this machine's user (no credential), as the table's selection is read by anyone. */
async function local(op, body) {
  const res = await fetch(`${url}/api/v2/${op}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ projectId, ...body }) });
  const env = await res.json();
  if (!env.ok) throw new Error(`${op}: ${env.error.code} ${env.error.message}`);
  return env.value;
}

/** The Agent inserts `text` at the start of the buffer through `rho --mcp`, retrying on `stale`. */
async function agentEdit(text, tag) {
  docId ??= (await agent("document.open", { path: file })).id;
  for (let i = 0; i < 20; i++) {
    const now = await agent("document.read", { documentId: docId });
    try {
      return await agent("document.edit", { documentId: docId, expectedVersion: now.version, changeId: `resize-${tag}-${i}`, edits: [{ start: 0, end: 0, text }] });
    } catch (e) {
      if (e.code !== "stale") throw e;
    }
  }
  throw new Error("the Agent's edit stayed stale");
}

const shownKeys = (page) => page.locator('[role="grid"] [role="row"] [aria-colindex="1"][role="gridcell"]').allTextContents();
const focused = (page) => page.evaluate(() => document.activeElement?.getAttribute("data-cell"));

/** Every check of the brief's resize pass, at the window's current width (`name` labels the facts). */
async function checks(page, name) {
  const content = page.locator(".cm-content");
  // A live Agent edit shows, attributed; Ctrl+Z (shared undo) reverts it and says whose it was.
  await showPanel(page, file);
  await until(`${name}: the editor shows the script`, async () => (await content.textContent()).includes("Sys.sleep"));
  const line = `# the Agent at ${name}`;
  await agentEdit(`${line}\n`, name);
  await until(`${name}: the Agent's edit shows live`, async () => (await content.textContent()).includes(line));
  check((await page.locator(".cm-foreign-edit").count()) > 0, `${name}: the Agent's text is marked as another author's`);
  await content.click();
  await page.keyboard.press("Control+z");
  await until(`${name}: undo reverts the Agent's line`, async () => !(await content.textContent()).includes(line) && !(await serverText()).includes(line));
  await until(`${name}: undo says whose change it was`, async () => (await page.locator(".note").textContent().catch(() => "")).includes("agent:claude-code"));
  await noOverflow(page, `editor_${name}`);

  // Table paging by keyboard to the last row and back, few DOM rows; Space selects a row by key.
  await showPanel(page, "big.csv");
  await until(`${name}: the table's first page`, async () => (await shownKeys(page))[0] === "k000000");
  await page.locator('[role="gridcell"][data-cell="0:0"]').focus();
  await page.keyboard.press("Control+End");
  await until(`${name}: the last row after Ctrl+End`, async () => (await shownKeys(page)).includes(lastKey));
  facts[`dom_rows_${name}`] = await page.locator('[role="grid"] [role="row"]').count();
  check(facts[`dom_rows_${name}`] < 150, `${name}: ${facts[`dom_rows_${name}`]} role=row nodes at the end`);
  await page.keyboard.press("Control+Home");
  await until(`${name}: back at the first cell`, async () => (await focused(page)) === "0:0");
  await page.keyboard.press("Space");
  await until(`${name}: k000000 selected, shared by key`, async () => (await local("selection.read", { scope: "shared", namespace: "big" })).keys.includes("k000000"));
  await until(`${name}: the row shows selected`, async () => (await page.locator('[aria-rowindex="2"][aria-selected="true"]').count()) === 1);
  await page.keyboard.press("Space");
  await until(`${name}: k000000 unselected`, async () => !(await local("selection.read", { scope: "shared", namespace: "big" })).keys.includes("k000000"));
  await noOverflow(page, `table_${name}`);
  await axe(page, `table_${name}`);
  await page.screenshot({ path: join(artifacts, `resize-table-${name}.png`) });

  // A rectangle typed in PDF points becomes a context the Agent reads back.
  await showPanel(page, "report.pdf");
  await page.locator(".media-stage canvas").waitFor({ timeout: 20000 });
  const rect = { x: 100, y: 120, width: 200, height: 150 };
  for (const [k, v] of Object.entries(rect)) await page.getByTestId(`rect-${k}`).fill(String(v));
  await page.getByRole("button", { name: "Point the Agent at this rectangle" }).click();
  await until(`${name}: the context is made`, async () => (await page.getByTestId("context-made").textContent()).includes(`${rect.x}, ${rect.y}, ${rect.width} x ${rect.height} pt`));
  const contextId = (await page.getByTestId("context-made").textContent()).match(/^Context (\S+):/)?.[1];
  const read = await agent("context.read", { contextId });
  check(read.media?.units === "pt" && ["x", "y", "width", "height"].every((k) => read.media?.rect?.[k] === rect[k]), `${name}: the Agent reads the typed rectangle: ${JSON.stringify(read.media)}`);
  await noOverflow(page, `media_${name}`);
  await axe(page, `media_${name}`);
  await page.screenshot({ path: join(artifacts, `resize-media-${name}.png`) });

  // A run of the editor's buffer: its log followed while it runs, to the end.
  await showPanel(page, file);
  await page.getByRole("button", { name: "Run this script" }).click();
  const stdout = page.getByTestId("log-stdout");
  await stdout.waitFor({ timeout: 20000 });
  await until(`${name}: the first line in the live log`, async () => (await stdout.textContent()).includes("line 1"), 30000);
  check(!(await stdout.textContent()).includes("line 4"), `${name}: the log shows while the run goes on`);
  await until(`${name}: the log to its end`, async () => (await stdout.textContent()).includes("line 4"), 30000);
  await until(`${name}: the run finished`, async () => (await page.locator(".run-details h2").textContent()).includes("finished"), 30000);
  await noOverflow(page, `runs_${name}`);
  await axe(page, `runs_${name}`);
  await page.screenshot({ path: join(artifacts, `resize-runs-${name}.png`) });
}

const groups = (page) => page.evaluate(() => [...document.querySelectorAll(".dv-groupview")].map((g) => [...g.querySelectorAll(".dv-tab")].map((t) => t.getAttribute("aria-label")).join("|")));

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "resize");
  await page.goto(`${url}/`);
  await page.getByTestId("who").waitFor();
  // The files this pass uses, opened from the list.
  for (const f of ["big.csv", "report.pdf", file]) await page.getByRole("button", { name: new RegExp(`^${f.replace(".", "\\.")}`) }).click();
  await until("the docked groups", async () => (await groups(page)).length >= 2);
  await checks(page, "1600");
  const docked = await groups(page);
  facts.groups_1600 = docked;

  await page.setViewportSize({ width: 700, height: 900 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  check((await page.locator(".dv-groupview").count()) === 0, "one tab strip at 700 px, no docked groups");
  await checks(page, "700");

  await page.setViewportSize({ width: 1600, height: 900 });
  await until("the same groups and tabs again at 1600 px", async () => JSON.stringify(await groups(page)) === JSON.stringify(docked));
  facts.groups_after = await groups(page);
  await checks(page, "1600_again");

  // A bad pairing cookie at 700 px: the access screen, never a silent widening.
  const bad = await browser.newContext({ viewport: { width: 700, height: 900 } });
  await bad.addCookies([{ name: "rho_pair", value: "forged", domain: new URL(url).hostname, path: "/" }]);
  const badPage = await bad.newPage();
  watch(badPage, "bad-cookie");
  await badPage.goto(`${url}/`);
  await badPage.getByRole("heading", { name: "This tab has no access to Rho" }).waitFor();
  await noOverflow(badPage, "access_700");
  await axe(badPage, "access_700");
  await bad.close();
  await context.close();
});
await agent.close();
finish();
