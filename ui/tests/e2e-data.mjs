// End to end of the data panels in Debian's Chromium against a real `rho`: register a 100,000-row CSV by the form, page/sort/filter it, brush and typed ranges in the scatter linked to the table, the object tree, axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_data.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID,
// RHO_ROWS (rows of big.csv, written by the test as described in rowOf), RHO_PROJECT_DIR, RHO_ARTIFACTS.
// The copied R and pandas code is run for real (ui/tests/setup.sh installs dplyr and pandas).
// Prints one JSON line of facts; exits 1 on any failure.
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { runDplyr, runPandas } from "./support/runcode.mjs";

const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const ROWS = Number(need("RHO_ROWS"));
const artifacts = need("RHO_ARTIFACTS");
const projectDir = need("RHO_PROJECT_DIR");
mkdirSync(artifacts, { recursive: true });

function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/** Row i of big.csv, exactly as tests/it/chromium/ui_data.rs writes it. */
function rowOf(i) {
  const x = ((i * 7919) % 100000) / 100;
  const y = (((i * 104729) % 100003) % 1000) / 10;
  return { id: `k${String(i).padStart(6, "0")}`, x, y, n: i % 1000, group: i % 10 === 0 ? null : i % 10 === 1 ? "" : `g${i % 7}` };
}
const all = Array.from({ length: ROWS }, (_, i) => rowOf(i));

const failures = [];
const facts = {};
function check(ok, what) {
  if (!ok) failures.push(what);
}

/** The service as this machine's user (no credential): what the Agent would read too. */
async function api(op, body) {
  const res = await fetch(`${url}/api/v2/${op}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ projectId, ...body }) });
  const env = await res.json();
  if (!env.ok) throw new Error(`${op}: ${env.error.code} ${env.error.message}`);
  return env.value;
}

async function until(what, f, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await f()) return true;
    } catch {
      // not yet
    }
    if (Date.now() > end) {
      failures.push(`timed out: ${what}`);
      return false;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function axe(page, name) {
  const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
  facts[`axe_${name}`] = r.violations.length;
  for (const v of r.violations) failures.push(`axe ${name}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

async function noOverflow(page, name) {
  const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  facts[`overflow_${name}`] = o;
  check(o.scroll <= o.inner, `horizontal overflow at ${name}: ${o.scroll} > ${o.inner}`);
}

function watch(page, name) {
  page.on("pageerror", (e) => failures.push(`${name}: page error ${e.message}`));
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) failures.push(`${name}: CSP: ${m.text()}`);
  });
}

/**
 * Multi-column sort (a click on group, Shift+click twice on x: group ascending, then x descending)
 * over the n = 5 filter; the copied R and pandas code, run for real on big.csv, end with the rows
 * the page shows, in order. Leaves the table sorted by x descending alone, as it found it.
 */
async function multiSortAndRunTheCode(page, xHead, n5) {
  const groupHead = page.getByRole("columnheader", { name: /^group/ });
  await groupHead.click();
  await xHead.click({ modifiers: ["Shift"] });
  await xHead.click({ modifiers: ["Shift"] });
  const byGroup = [...n5].sort((a, b) => (a.group < b.group ? -1 : a.group > b.group ? 1 : b.x - a.x));
  await until("sorted by group, then x descending", async () => (await status(page)).includes("sorted by group ascending, then x descending"));
  await until("the rows in group, x order", async () => (await shownKeys(page)).join() === byGroup.slice(0, (await shownKeys(page)).length).map((r) => r.id).join());
  check((await groupHead.getAttribute("aria-sort")) === "ascending", "the first sort key is the sorted header");
  const shown = await shownKeys(page);
  facts.multisort_shown = shown.length;
  await page.screenshot({ path: join(artifacts, "data-multisort-1600.png") });
  check(shown.length >= 5, `the page shows rows: ${shown.length}`);
  for (const [lang, button, run] of [
    ["R", "Copy as R (dplyr)", runDplyr],
    ["Python", "Copy as Python (pandas)", runPandas],
  ]) {
    await page.getByRole("button", { name: button }).click();
    await until(`the ${lang} code shown`, async () => new RegExp(`${lang} code`).test((await page.locator(".code-copy [role=status]").textContent()) ?? ""));
    const code = (await page.getByTestId("code").textContent()) ?? "";
    let keys = [];
    try {
      keys = run(code, projectDir, "id");
    } catch (e) {
      failures.push(`the ${lang} code did not run: ${e.stderr ?? e.message}\n${code}`);
    }
    facts[`code_rows_${lang}`] = keys.length;
    check(keys.length === n5.length, `the ${lang} code ends with ${keys.length} rows, the page says ${n5.length}`);
    check(keys.slice(0, shown.length).join() === shown.join(), `the ${lang} code's first rows are the page's: ${keys.slice(0, 5)} vs ${shown.slice(0, 5)}`);
  }
  await xHead.click();
  await xHead.click();
  await until("x descending alone again", async () => (await xHead.getAttribute("aria-sort")) === "descending" && !(await status(page)).includes("sorted by"));
}

const rowCount = (page) => page.locator('[role="grid"] [role="row"]').count();
const status = async (page) => (await page.getByTestId("table-status").textContent()) ?? "";
/** Keys of the rows the grid shows now (the key column is the first). */
const shownKeys = (page) => page.locator('[role="grid"] [role="row"] [aria-colindex="1"][role="gridcell"]').allTextContents();
const sharedKeys = async () => new Set((await api("selection.read", { scope: "shared", namespace: "big" })).keys);

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: url });
  const page = await context.newPage();
  watch(page, "data");
  await page.goto(`${url}/`);
  await page.getByTestId("who").waitFor();

  // Registration: the file is too large for a buffer, so the form asks before sampling; it proposes, the person corrects and confirms.
  await page.getByRole("button", { name: "big.csv" }).click();
  await page.getByRole("button", { name: "Record the file and read a sample" }).click();
  await page.getByRole("button", { name: "Confirm and register" }).waitFor();
  const typeOf = (c) => page.getByLabel(`Type of ${c}`).inputValue();
  facts.proposed = { id: await typeOf("id"), x: await typeOf("x"), y: await typeOf("y"), n: await typeOf("n"), group: await typeOf("group") };
  check(JSON.stringify(facts.proposed) === JSON.stringify({ id: "string", x: "number", y: "number", n: "integer", group: "string" }), `proposed types ${JSON.stringify(facts.proposed)}`);
  check((await page.getByLabel("Entity key column").inputValue()) === "id", "the key proposed is id");
  const groupMissing = page.getByLabel("Missing texts of group");
  check((await groupMissing.inputValue()) === 'NA, ""', `group's proposed missing texts: ${await groupMissing.inputValue()}`);
  // The person keeps the empty string a value: only NA means missing.
  await groupMissing.fill("NA");
  await page.screenshot({ path: join(artifacts, "data-register-1600.png") });
  await page.getByRole("button", { name: "Confirm and register" }).click();

  // The table: 100,000 rows, few DOM rows, full counts.
  const grid = page.getByRole("grid");
  await grid.waitFor();
  await until("the table's row count", async () => (await status(page)).startsWith(`${ROWS.toLocaleString("en")} rows`));
  facts.rowcount = await grid.getAttribute("aria-rowcount");
  check(facts.rowcount === String(ROWS + 1), `aria-rowcount ${facts.rowcount}`);
  check((await grid.getAttribute("aria-colcount")) === "5", "aria-colcount 5");
  await until("the first page", async () => (await shownKeys(page))[0] === "k000000");
  facts.dom_rows_top = await rowCount(page);
  check(facts.dom_rows_top < 150, `${facts.dom_rows_top} role=row nodes at the top`);
  // Missing and empty read differently.
  check((await page.locator('[aria-rowindex="2"] .cell-missing').count()) === 1, "row k000000's group shows missing");
  check((await page.locator('[aria-rowindex="3"] .cell-empty').count()) === 1, "row k000001's group shows an empty string");

  // Keyboard: roving focus, Ctrl+End to the last row, PageUp, Home.
  await page.locator('[role="gridcell"][data-cell="0:0"]').focus();
  await page.keyboard.press("ArrowDown");
  check((await page.evaluate(() => document.activeElement?.getAttribute("data-cell"))) === "1:0", "ArrowDown moves focus one row");
  await page.keyboard.press("Control+End");
  await until("the last row after Ctrl+End", async () => (await page.locator(`[aria-rowindex="${ROWS + 1}"]`).count()) === 1 && (await shownKeys(page)).includes(all[ROWS - 1].id));
  check((await page.evaluate(() => document.activeElement?.getAttribute("data-cell"))) === `${ROWS - 1}:4`, "Ctrl+End focuses the last cell");
  facts.dom_rows_end = await rowCount(page);
  check(facts.dom_rows_end < 150, `${facts.dom_rows_end} role=row nodes at the end`);
  await page.keyboard.press("PageUp");
  await page.keyboard.press("Control+Home");
  await until("back at the top", async () => (await page.evaluate(() => document.activeElement?.getAttribute("data-cell"))) === "0:0");
  // The selection toggles with Space (it is the person's click or key, shared by key).
  await page.keyboard.press("Space");
  await until("k000000 selected", async () => (await sharedKeys()).has("k000000"));
  await page.keyboard.press("Space");
  await until("k000000 unselected", async () => !(await sharedKeys()).has("k000000"));
  // Sorting by keyboard on the header row: the empty string sorts first, missing values last either way.
  const active = () => page.evaluate(() => document.activeElement?.getAttribute("data-cell"));
  await page.keyboard.press("ArrowUp");
  await page.keyboard.press("End");
  check((await active()) === "-1:4", "End on the header row reaches the last column");
  const groupHead = page.getByRole("columnheader", { name: /^group/ });
  await page.keyboard.press("Enter");
  await until("group sorted ascending by Enter", async () => (await groupHead.getAttribute("aria-sort")) === "ascending");
  await until("the empty strings first", async () => (await page.locator('[aria-rowindex="2"] .cell-empty').count()) === 1 && (await shownKeys(page))[0] === "k000001");
  await page.keyboard.press("Enter");
  await until("group sorted descending", async () => (await groupHead.getAttribute("aria-sort")) === "descending" && (await shownKeys(page))[0] !== "k000001");
  check((await page.locator('[aria-rowindex="2"] .cell-missing').count()) === 0, "missing values stay last when descending");
  await page.keyboard.press("Enter");
  await until("group unsorted", async () => (await groupHead.getAttribute("aria-sort")) === "none" && (await shownKeys(page))[0] === "k000000");
  await page.keyboard.press("Home");
  check((await active()) === "-1:0", "Home on the header row reaches the first column");

  // Server-side sort: x descending on the second click.
  const xHead = page.getByRole("columnheader", { name: /^x/ });
  await xHead.click();
  check((await xHead.getAttribute("aria-sort")) === "ascending", "x sorted ascending");
  await xHead.click();
  check((await xHead.getAttribute("aria-sort")) === "descending", "x sorted descending");
  const byX = [...all].sort((a, b) => b.x - a.x);
  await until("the rows sorted by x descending", async () => (await shownKeys(page))[0] === byX[0].id && (await shownKeys(page))[1] === byX[1].id);

  // Server-side filter: n = 5 leaves 100 rows, still sorted.
  await page.getByLabel("Column").selectOption("n");
  await page.getByLabel("Condition").selectOption("eq");
  await page.getByLabel("Value").fill("5");
  await page.getByRole("button", { name: "Add filter" }).click();
  const n5 = byX.filter((r) => r.n === 5);
  await until("the filter's total", async () => (await status(page)).startsWith(`${n5.length} rows match`));
  await until("the filtered rows", async () => (await shownKeys(page))[0] === n5[0].id);
  // The code reproduces the page.
  await page.getByRole("button", { name: "Copy as R (dplyr)" }).click();
  await until("the R code copied", async () => /R code copied/.test((await page.locator(".code-copy [role=status]").textContent()) ?? ""));
  const r = (await page.getByTestId("code").textContent()) ?? "";
  check(r.includes("filter(!is.na(n), n == 5)") && r.includes("arrange(desc(x))") && r.includes('col_types = "cddic"'), `R code: ${r}`);
  await page.getByRole("button", { name: "Copy as Python (pandas)" }).click();
  await until("the pandas code copied", async () => /Python code copied/.test((await page.locator(".code-copy [role=status]").textContent()) ?? ""));
  const py = (await page.getByTestId("code").textContent()) ?? "";
  check(py.includes('df = df[df["n"].notna() & (df["n"] == 5)]') && py.includes('ascending=[False]'), `pandas code: ${py}`);
  facts.clipboard_matches = (await page.evaluate(() => navigator.clipboard.readText())) === py;
  check(facts.clipboard_matches, "the clipboard holds the pandas code");
  await page.screenshot({ path: join(artifacts, "data-table-1600.png") });
  await axe(page, "table_1600");
  await multiSortAndRunTheCode(page, xHead, n5);
  await page.getByRole("button", { name: /^Remove filter n = 5/ }).click();
  await xHead.click();
  await until("unsorted again", async () => (await xHead.getAttribute("aria-sort")) === "none" && (await status(page)).startsWith(`${ROWS.toLocaleString("en")} rows`));

  // The scatter: sampled (the table has more rows than a plot carries), brush, then typed ranges.
  await page.getByRole("button", { name: "Scatter plot…" }).click();
  const sampling = page.getByTestId("sampling");
  await until("the plot's sampling", async () => /Sampled: every|All /.test((await sampling.textContent()) ?? ""));
  facts.sampling = await sampling.textContent();
  const plot = page.getByTestId("plot");
  await until("the plot's summary", async () => ((await plot.getAttribute("aria-label")) ?? "").includes("points"));
  const over = page.locator(".u-over");
  const box = await over.boundingBox();
  // A brush over the left-bottom quarter.
  await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.6);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.8, { steps: 8 });
  await page.mouse.up();
  const scatterStatus = page.getByTestId("scatter-status");
  await until("the brush's selection", async () => /selected by brush/.test((await scatterStatus.textContent()) ?? ""), 30000);
  facts.brush = await scatterStatus.textContent();
  const brushed = await sharedKeys();
  check(brushed.size > 0, "the brush selected keys");
  // The chosen points are drawn in the selection colour (orange fill #ff9a52 / stroke #b34700).
  const orange = () =>
    page.evaluate(() => {
      const c = document.querySelector(".plot-host canvas");
      const ctx = c?.getContext("2d");
      if (!c || !ctx) return 0;
      const d = ctx.getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 0; i < d.length; i += 4) if (d[i] > 170 && d[i + 1] > 60 && d[i + 1] < 170 && d[i + 2] < 110) n++;
      return n;
    });
  await until("the brushed points drawn as selected", async () => (await orange()) > 50);
  facts.orange_pixels = await orange();
  await page.screenshot({ path: join(artifacts, "data-scatter-1600.png") });
  await axe(page, "scatter_1600");

  // The table shows the same keys selected: its count, and its rows when only selected rows are shown.
  await page.getByRole("tab", { name: "big.csv", exact: true }).click();
  await until("the table's selected count", async () => (await status(page)).includes(`${brushed.size.toLocaleString("en")} selected`));
  await page.getByLabel("Only selected rows").check();
  await until("only the selected rows", async () => (await status(page)).startsWith(`${brushed.size.toLocaleString("en")} rows match`));
  // Rows show once their page arrived: wait for the shown rows to settle, then compare.
  let onlySel = [];
  await until("every row shown is a brushed key", async () => {
    onlySel = await shownKeys(page);
    return onlySel.length > 0 && onlySel.every((k) => brushed.has(k));
  });
  facts.only_selected_shown = onlySel.length;
  await until("the shown rows are marked selected", async () => (await page.locator('[role="row"][aria-selected="true"]').count()) === (await shownKeys(page)).length);
  await page.screenshot({ path: join(artifacts, "data-linked-1600.png") });
  await page.getByLabel("Only selected rows").uncheck();

  // Typed ranges select exactly the rows inside, over the whole table (not only the sample).
  await page.getByRole("tab", { name: /^Scatter of big\.csv/ }).click();
  await page.getByLabel("x from").fill("100");
  await page.getByLabel("x to").fill("110.5");
  await page.getByLabel("y from").fill("20");
  await page.getByLabel("y to").fill("30");
  await page.getByRole("button", { name: "Select range" }).click();
  const inside = all.filter((r) => r.x >= 100 && r.x <= 110.5 && r.y >= 20 && r.y <= 30).map((r) => r.id).sort();
  await until("the typed range's selection", async () => /selected by typed range/.test((await scatterStatus.textContent()) ?? ""));
  const typed = [...(await sharedKeys())].sort();
  facts.typed_range = { expected: inside.length, selected: typed.length };
  check(JSON.stringify(typed) === JSON.stringify(inside), `typed range selected ${typed.length}, expected ${inside.length}`);
  await page.getByRole("tab", { name: "big.csv", exact: true }).click();
  await until("the table follows the typed selection", async () => (await status(page)).includes(`${inside.length} selected`));

  // The object view: a JSON tree, keyboard navigable.
  await page.getByRole("tab", { name: "Projects", exact: true }).click();
  await page.getByRole("button", { name: "fit.json" }).click();
  const tree = page.getByRole("tree");
  await tree.waitFor();
  await tree.getByRole("treeitem").first().focus();
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  const coef = page.locator('[role="treeitem"][data-path="/coefficients"]');
  await until("the coefficients expanded by keyboard", async () => (await coef.getAttribute("aria-expanded")) === "true");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("ArrowRight");
  await until("a coefficient shown", async () => (await tree.textContent()).includes("3.25"));
  check((await page.evaluate(() => document.activeElement?.getAttribute("data-path"))) === "/coefficients/0", "focus moved into the coefficients");
  await page.screenshot({ path: join(artifacts, "data-object-1600.png") });
  await axe(page, "object_1600");

  // A table that does not fit its declaration shows the first read's problems by row and column.
  await page.getByRole("tab", { name: "Projects", exact: true }).click();
  await page.getByRole("button", { name: "bad.csv" }).click();
  const problem = page.locator(".table-panel [role=alert]");
  await until("the validation problems", async () => /row 2, column n/.test((await problem.textContent()) ?? ""));
  facts.problems = await problem.textContent();
  await page.screenshot({ path: join(artifacts, "data-problems-1600.png") });
  await axe(page, "problems_1600");

  // Any registered file also opens as text (here the table, then the object), and back.
  const asText = (what) => page.locator(".as-text .cm-content").textContent().then((t) => (t ?? "").includes(what));
  await page.getByRole("button", { name: "Open as text", exact: true }).click();
  await until("bad.csv as text in the editor", () => asText("b,x"));
  await page.screenshot({ path: join(artifacts, "data-as-text-1600.png") });
  await axe(page, "as_text_1600");
  await page.getByRole("button", { name: "Back to the table" }).click();
  await until("bad.csv's table again", async () => /row 2, column n/.test((await problem.textContent()) ?? ""));
  await page.getByRole("tab", { name: "fit.json", exact: true }).click();
  await page.getByRole("button", { name: "Open as text", exact: true }).click();
  await until("fit.json as text in the editor", () => asText("summary.lm"));
  await page.getByRole("button", { name: "Back to the object" }).click();
  await tree.waitFor();

  // 390 px: the tab strip; the table still virtual, no horizontal overflow, axe clean.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tab", { name: "big.csv", exact: true }).click();
  await until("the table at 390", async () => (await shownKeys(page)).length > 0);
  facts.dom_rows_390 = await rowCount(page);
  check(facts.dom_rows_390 < 150, `${facts.dom_rows_390} rows at 390`);
  await noOverflow(page, "table_390");
  await page.screenshot({ path: join(artifacts, "data-table-390.png") });
  await axe(page, "table_390");
  await page.getByRole("tab", { name: /^Scatter of big\.csv/ }).click();
  await until("the plot at 390", async () => (await page.locator(".u-over").count()) === 1);
  await noOverflow(page, "scatter_390");
  await page.screenshot({ path: join(artifacts, "data-scatter-390.png") });
  await axe(page, "scatter_390");
  await page.getByRole("tab", { name: "fit.json", exact: true }).click();
  await tree.waitFor();
  await noOverflow(page, "object_390");
  await axe(page, "object_390");
} catch (e) {
  failures.push(`error: ${e instanceof Error ? e.stack : String(e)}`);
} finally {
  await browser.close();
}
writeFileSync(join(artifacts, "data-facts.json"), JSON.stringify({ facts, failures }, null, 2));
console.log(JSON.stringify({ ok: failures.length === 0, facts, failures }));
process.exit(failures.length === 0 ? 0 : 1);
