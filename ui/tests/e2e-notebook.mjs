// End to end in Debian's Chromium against a real `rho` with real R and Python: the Notebook panel (issue 15).
//
// Run by tests/it/chromium/ui_notebook.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID, RHO_AGENT_TOKEN
// (a real grant of session claude-code), RHO_ARTIFACTS. Output in printed order, a data frame opened and sorted,
// a plot and its redraw, a Python sleep interrupted with the queue behind it, an Agent's cell, stop; axe and overflow at 1600 and 390.
// Prints one JSON line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { agentCaller, kit, need, showPanel as show } from "./support/kit.mjs";

const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const token = need("RHO_AGENT_TOKEN");
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
/** Sessions start and cells run: 30 s unless said. */
const until = (what, f, ms = 30000) => waitFor(what, f, ms);
const agent = agentCaller(url, token, projectId);

/** Types code in a language's box and runs it with Ctrl+Enter (keyboard only). */
async function run(page, language, code) {
  const box = page.getByLabel(`${language} code (Ctrl+Enter or Cmd+Enter runs it)`);
  await box.focus();
  await box.fill(code);
  await page.keyboard.press("Control+Enter");
  await until(`the ${language} box is emptied after its cell is queued`, async () => (await box.inputValue()) === "", 15000);
}

const state = (page, no) => page.getByTestId(`nb-state-${no}`).textContent();

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "notebook");
  await page.goto(`${url}/`);
  await page.locator(".dv-tab", { hasText: /^Notebook$/ }).waitFor({ timeout: 20000 });
  await show(page, "Notebook");
  await page.getByTestId("nb-summary").waitFor();

  // 1. Output in printed order, each stream marked.
  await run(page, "R", 'x <- 1:10; print(x); message("m"); warning("w")');
  await until("cell 1 is done", async () => (await state(page, 1)) === "done", 60000);
  const streams = await page.getByTestId("nb-output-1").locator("[data-stream]").evaluateAll((els) => els.map((e) => [e.dataset.stream, e.textContent]));
  facts.streams = streams;
  const order = streams.map(([s]) => s);
  check(order.indexOf("stdout") < order.indexOf("message") && order.indexOf("message") < order.indexOf("warning"), `stdout, message, warning in printed order: ${JSON.stringify(streams)}`);
  check(streams.some(([s, t]) => s === "stdout" && t.includes("[1]  1  2  3")), "the printed vector shows");
  check(streams.some(([s, t]) => s === "warning" && t.startsWith("warning: ")), "the warning is marked in words");
  check((await page.getByTestId("nb-cell-1").textContent()).includes("by you (local browser)"), "the person is named as who ran cell 1");

  // 2. A data frame from the variables list into the table view, sorted by b.
  await run(page, "R", "df <- data.frame(a=1:1000, b=rnorm(1000))");
  await until("cell 2 is done", async () => (await state(page, 2)) === "done");
  await until("df is listed", async () => (await page.getByRole("button", { name: "Open df", exact: true }).count()) === 1);
  await page.getByRole("button", { name: "df, defined by cell 2: show that cell" }).click();
  facts.focused = await page.evaluate(() => document.activeElement?.getAttribute("data-testid"));
  check(facts.focused === "nb-cell-2", `the variable's name shows the cell that defined it (${facts.focused})`);
  await page.getByRole("button", { name: "Open df", exact: true }).click();
  const status = page.getByTestId("nb-inspect-status");
  await until("the first page of df", async () => (await status.textContent()).includes("of 1,000"));
  facts.inspect_first = await status.textContent();
  await page.getByRole("button", { name: "Sort by b" }).click();
  await until("df sorted by b", async () => (await status.textContent()).includes("sorted by b ascending"));
  const bs = await page.getByTestId("nb-inspect-table").locator("tbody tr").evaluateAll((rows) => rows.map((r) => Number(r.querySelectorAll("td")[1]?.textContent)));
  facts.sorted_b_head = bs.slice(0, 3);
  check(bs.length === 50 && bs.every((v, i) => i === 0 || bs[i - 1] <= v), `50 rows ascending by b: ${bs.slice(0, 5)}`);
  await page.getByTestId("nb-inspect").screenshot({ path: join(artifacts, "notebook-inspect-1600.png") });
  await page.getByRole("button", { name: "Next rows" }).click();
  await until("the second page", async () => (await status.textContent()).startsWith("Rows 51–100"));

  // 3. A plot as an image named by its cell and page.
  await run(page, "R", "plot(1:10)");
  await until("cell 3 is done", async () => (await state(page, 3)) === "done");
  const img = page.getByRole("img", { name: /^Plot 1 of cell 3, page 1/ });
  await until("the plot is shown", async () => (await img.evaluate((i) => i.complete && i.naturalWidth)) > 0);

  // 4. Python: an earlier value, a sleep interrupted from the panel with a cell waiting behind it.
  await run(page, "Python", "v = 41");
  await until("cell 4 is done", async () => (await state(page, 4)) === "done", 60000);
  await run(page, "Python", "import time\ntime.sleep(30)");
  await until("cell 5 runs", async () => (await state(page, 5)) === "running");
  await run(page, "Python", "print(v + 1)");
  await until("cell 6 waits first in the queue", async () => (await state(page, 6)) === "waiting, number 1 in the Python queue", 10000);
  await page.getByRole("button", { name: "Interrupt cell 5" }).click();
  await until("cell 5 reads interrupted", async () => (await state(page, 5)).startsWith("interrupted by you (local browser)"), 15000);
  await until("cell 6 ran with the earlier value", async () => (await page.getByTestId("nb-output-6").textContent()).includes("42"));
  facts.interrupted = await state(page, 5);

  // 5. The Agent's cell through its grant: the panel names it.
  const byAgent = await agent("kernel.run", { language: "r", code: "y <- x * 2", changeId: "agent-cell-1", purpose: "double x" });
  facts.agent_cell = byAgent.no;
  await until("the Agent's cell is shown with who ran it", async () => {
    const t = await page.getByTestId(`nb-cell-${byAgent.no}`).textContent();
    return t.includes("by the Agent claude-code") && t.includes("Purpose: double x");
  });
  await until("the Agent's cell is done", async () => (await state(page, byAgent.no)) === "done");
  // An R cell that redraws cell 3's plot: its plot says which one it replaced (`<cellId>#<index>`).
  await run(page, "R", 'points(5, 5, col = "red")');
  const redraw = byAgent.no + 1;
  await until(`cell ${redraw} is done`, async () => (await state(page, redraw)) === "done");
  const redrawn = page.getByRole("img", { name: `Plot 1 of cell ${redraw}, page 1, redraws plot 1 of cell 3` });
  const named = await until("the redrawn plot names the plot it replaced", async () => (await redrawn.evaluate((i) => i.complete && i.naturalWidth)) > 0);
  if (!named) facts.plots_shown = await page.locator(".nb-plot").evaluateAll((fs) => fs.map((f) => f.textContent));
  facts.announced = await page.getByTestId("nb-announce").textContent();
  check(facts.announced.length > 0 && facts.announced.length < 120, `a brief announcement (${facts.announced})`);

  await page.waitForTimeout(300);
  await axe(page, "notebook_1600");
  await noOverflow(page, "notebook_1600");
  await page.screenshot({ path: join(artifacts, "notebook-1600x900.png"), fullPage: true });

  // 390 px in the strip.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await show(page, "Notebook");
  await page.waitForTimeout(300);
  await noOverflow(page, "notebook_390");
  await axe(page, "notebook_390");
  await page.screenshot({ path: join(artifacts, "notebook-390x844.png"), fullPage: true });

  // Stop the Python session from this local tab.
  await page.getByRole("button", { name: "Stop the Python session" }).click();
  await until("the Python session ended", async () => (await page.getByTestId("nb-session-python").first().textContent()).includes("ended"), 15000);
  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
}

finish();
