// End to end in Chromium against a real `rho`: the Console panel runs coloured output on both streams, a cut past 1 MiB,
// the kept tail streamed while a command runs, a stop from the panel with its signal, the history's Up, a second command while one runs; axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_console.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS, RHO_PAIR_LINK (a
// `rho --pair --project` link to this project's folder; the others of tests/it/support/browser.rs are set but unused). Prints one JSON line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need, showPanel as show } from "./support/kit.mjs";

const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
const pairLink = need("RHO_PAIR_LINK");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
const until = (what, f, ms = 20000) => waitFor(what, f, ms);

const COLOURED = "printf '\\033[31mred\\033[0m\\n'; echo out; echo err >&2";
const BIG = "yes line | head -c 1200000";
const LIVE = "yes live | head -c 1200000; echo STILL-RUNNING; sleep 9";

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "console");
  await page.goto(`${url}/`);
  await page.locator(".dv-tab", { hasText: /^Console$/ }).waitFor({ timeout: 20000 });
  await show(page, "Console");
  const line = page.getByLabel("Command", { exact: true });
  await line.waitFor({ timeout: 20000 });
  const state = page.getByTestId("console-state");
  const log = page.getByTestId("console-log");

  // Colours and both streams.
  await line.fill(COLOURED);
  await line.press("Enter");
  await until("the coloured command finishes", async () => (await state.textContent()).includes("finished (exit 0)"));
  await until("its three lines", async () => (await log.locator(".row").count()) === 3);
  const red = log.locator("span.fg-c1", { hasText: "red" });
  check((await red.count()) === 1, "the red text is one span coloured by the SGR parser");
  facts.red_colour = await red.evaluate((e) => getComputedStyle(e).color).catch(() => null);
  check(facts.red_colour === "rgb(255, 107, 107)", `red is drawn red: ${facts.red_colour}`);
  check(!(await log.textContent()).includes("[31m"), "no raw escape is shown");
  check((await log.locator('[data-stream="stdout"]', { hasText: "out" }).count()) === 1, "out is a stdout row");
  check((await log.locator('[data-stream="stderr"]', { hasText: "err" }).count()) === 1, "err is a stderr row, marked apart");
  facts.announced = await page.getByTestId("console-announce").textContent();
  check(/new lines?/.test(facts.announced), `new lines were summarised politely: ${facts.announced}`);

  // Up recalls the last command; the line was empty after running.
  check((await line.inputValue()) === "", "the line is empty after Enter");
  await line.press("ArrowUp");
  check((await line.inputValue()) === COLOURED, `Up recalls the command: ${await line.inputValue()}`);
  await line.press("ArrowDown");
  check((await line.inputValue()) === "", "Down returns to the empty draft");

  // More than 1 MiB: the head, the cut marker with its count, the tail.
  const t0 = Date.now();
  await line.fill(BIG);
  await line.press("Enter");
  await until("the big command finishes", async () => (await state.textContent()).includes("finished (exit 0)"), 60000);
  const cutButton = page.getByRole("button", { name: "Go to the cut" });
  await until("the cut can be reached", async () => (await cutButton.count()) === 1, 30000);
  await until("the tail is read", async () => (await log.textContent()).length > 0 && !(await page.locator(".console-output .toolbar").textContent()).includes("kept tail is read"), 30000);
  facts.big_ms = Date.now() - t0;
  const ping = Date.now();
  await page.evaluate(() => 1);
  facts.responsive_ms = Date.now() - ping;
  check(facts.responsive_ms < 1000, `the page answers after 1.2 MB of output (${facts.responsive_ms} ms)`);
  await cutButton.click();
  const cut = page.getByTestId("console-cut");
  await until("the cut marker is drawn", async () => (await cut.count()) === 1);
  facts.cut = await cut.textContent();
  const omitted = 1200000 - 1048576 - 65536;
  check(facts.cut.includes(`${omitted.toLocaleString("en")} bytes not kept`), `the marker counts what was not kept: ${facts.cut}`);
  await page.screenshot({ path: join(artifacts, "console-cut-1600x900.png") });
  facts.rows_in_dom = await log.locator(".row").count();
  check(facts.rows_in_dom < 200, `the output is virtualised (${facts.rows_in_dom} rows in the DOM)`);

  // Past the head while it still runs: the kept tail streams in before the command ends.
  await line.fill(LIVE);
  await line.press("Enter");
  await until("the live tail is shown while it runs", async () => (await state.textContent()).startsWith("running") && (await log.textContent()).includes("STILL-RUNNING"), 30000);
  facts.live_cut = await page.getByRole("button", { name: "Go to the cut" }).count();
  check(facts.live_cut === 1, `the cut is there while the tail streams (${facts.live_cut})`);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await until("the live command ends by its signal", async () => (await state.textContent()).includes("ended by signal 15 (SIGTERM)"), 15000);

  // A long command, a second one typed and run while it runs, then stopped from the panel.
  await line.fill("sleep 30");
  await line.press("Enter");
  await until("sleep is running", async () => (await state.textContent()).startsWith("running"));
  await line.fill("echo while-sleeping");
  await line.press("Enter");
  await until("the second command finished while sleep runs", async () => (await state.textContent()).includes("finished (exit 0)"));
  await until("the second command's output is shown", async () => (await log.textContent()).includes("while-sleeping"));
  await page.locator(".console-list button", { hasText: "sleep 30" }).click();
  await until("sleep is shown", async () => (await state.textContent()).startsWith("running"));
  await axe(page, "console_1600");
  await noOverflow(page, "console_1600");
  await page.screenshot({ path: join(artifacts, "console-1600x900.png") });
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await until("sleep ends by its signal", async () => (await state.textContent()).includes("ended by signal 15 (SIGTERM)"), 15000);
  facts.stopped = await state.textContent();

  // 390 px: the strip, no overflow, axe.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await show(page, "Console");
  await page.locator(".console-list button", { hasText: "printf" }).click();
  await page.waitForTimeout(300);
  await noOverflow(page, "console_390");
  await axe(page, "console_390");
  await page.screenshot({ path: join(artifacts, "console-390x844.png"), fullPage: true });

  // A paired tab reads the commands but can neither run nor stop one: both disabled, the reason said.
  await page.setViewportSize({ width: 1600, height: 900 });
  await show(page, "Console");
  await line.fill("sleep 20");
  await line.press("Enter");
  await until("sleep 20 is running", async () => (await state.textContent()).startsWith("running"));
  const paired = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const p = await paired.newPage();
  watch(p, "paired");
  await p.goto(pairLink);
  await p.locator(".dv-tab", { hasText: /^Console$/ }).waitFor({ timeout: 20000 });
  await show(p, "Console");
  const pairedLine = p.getByLabel("Command", { exact: true });
  await pairedLine.waitFor({ timeout: 20000 });
  check(await pairedLine.isDisabled(), "the paired tab's command line is disabled");
  await p.locator(".console-list button", { hasText: "sleep 20" }).click();
  const pairedStop = p.getByRole("button", { name: "Stop", exact: true });
  await until("the paired tab shows the running command", async () => (await pairedStop.count()) === 1);
  check(await pairedStop.isDisabled(), "the paired tab's Stop is disabled");
  facts.paired_reason = await p.locator("#console-stop-why").textContent();
  check(/local browser/.test(facts.paired_reason) && (await pairedStop.getAttribute("aria-describedby")) === "console-stop-why", `the reason is given to Stop: ${facts.paired_reason}`);
  await axe(p, "console_paired");
  await p.screenshot({ path: join(artifacts, "console-paired-1600x900.png") });
  await paired.close();
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await until("sleep 20 ends by its signal", async () => (await state.textContent()).includes("ended by signal 15"), 15000);
  await context.close();
});

finish();
