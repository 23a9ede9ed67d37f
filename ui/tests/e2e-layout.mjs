// End to end of the layout by keyboard in Debian's Chromium against a real `rho`: F6 and Shift+F6 through the
// regions in order (docked and in the strip), a panel moved to a new group and a group sized without a drag,
// the layout remembered per project across a reload and a narrow window, a stale memory falling back.
//
// Run by tests/it/chromium/ui_layout.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID,
// RHO_ARTIFACTS. The project holds analysis.R and data.csv (a first visit opens both). Prints one JSON
// line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need } from "./support/kit.mjs";

const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const { failures, facts, finish, check, until, axe, noOverflow, watch } = kit();

/** The panels the editors' group opens with (a first visit: the work panels, then the script and the table). */
const OPENED = ["Runs", "Agent", "Console", "Notebook", "Conversations", "analysis.R", "data.csv"];

/** The region focus is in: `header`, `tabs`, `panel`, or `group:` and its tabs' names. */
const region = (page) =>
  page.evaluate(() => {
    const r = document.activeElement?.closest(".dv-groupview, [data-region]");
    if (!r) return null;
    if (r.classList.contains("dv-groupview")) return `group:${[...r.querySelectorAll(".dv-tab")].map((t) => t.getAttribute("aria-label")).join("|")}`;
    return r.getAttribute("data-region");
  });

/** Presses `key` `n` times; answers the region reached after each press. */
async function walk(page, key, n) {
  const seen = [];
  for (let i = 0; i < n; i++) {
    await page.keyboard.press(key);
    seen.push(await region(page));
  }
  return seen;
}

/** Each docked group's tabs, in document order. */
const groups = (page) => page.evaluate(() => [...document.querySelectorAll(".dv-groupview")].map((g) => [...g.querySelectorAll(".dv-tab")].map((t) => t.getAttribute("aria-label")).join("|")));

/** The size of the group whose tabs include `name`. */
const sizeOf = (page, name) =>
  page.evaluate((n) => {
    const g = [...document.querySelectorAll(".dv-groupview")].find((x) => [...x.querySelectorAll(".dv-tab")].some((t) => t.getAttribute("aria-label") === n));
    const b = g?.getBoundingClientRect();
    return b ? { width: Math.round(b.width), height: Math.round(b.height) } : null;
  }, name);

const near = (a, b) => a !== null && b !== null && Math.abs(a.width - b.width) <= 2 && Math.abs(a.height - b.height) <= 2;

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "layout");
  await page.goto(`${url}/`);
  await page.locator(".cm-content").waitFor({ timeout: 20000 });
  await until("two docked groups", async () => {
    const g = await groups(page);
    return g.length === 2 && g[0] === "Projects" && JSON.stringify(g[1].split("|").sort()) === JSON.stringify([...OPENED].sort());
  }, 15000);
  const EDITORS = (await groups(page))[1];
  facts.editors = EDITORS;

  // F6 from nowhere: the header, each group (its selected tab), and round to the header again.
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  const forward = await walk(page, "F6", 4);
  facts.f6_1600 = forward;
  check(JSON.stringify(forward) === JSON.stringify(["header", "group:Projects", `group:${EDITORS}`, "header"]), `F6 at 1600: ${JSON.stringify(forward)}`);
  const backward = await walk(page, "Shift+F6", 3);
  facts.shift_f6_1600 = backward;
  check(JSON.stringify(backward) === JSON.stringify([`group:${EDITORS}`, "group:Projects", "header"]), `Shift+F6 at 1600: ${JSON.stringify(backward)}`);
  await page.keyboard.press("F6");
  check((await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) === "Projects", "F6 lands on the group's selected tab");
  // Delete on the files list's tab leaves it open (dockview's own tab list would close it).
  await page.keyboard.press("Delete");
  check((await groups(page))[0] === "Projects", "Delete does not close the files list");

  // Move Runs to a new group below the editors, by keyboard: its tab, Shift+F10, the place, Move.
  await page.keyboard.press("F6");
  const tabName = () => page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
  await page.keyboard.press("Home");
  for (let i = 0; i < OPENED.length && (await tabName()) !== "Runs"; i++) await page.keyboard.press("ArrowRight");
  check((await tabName()) === "Runs", "the arrow keys reach the Runs tab");
  await page.keyboard.press("Shift+F10");
  const dialog = page.getByRole("dialog", { name: "Arrange Runs" });
  await dialog.waitFor({ timeout: 5000 });
  const where = page.getByLabel("Move Runs to");
  check(await where.evaluate((el) => el === document.activeElement), "the dialog takes focus");
  const below = (await where.locator("option").allTextContents()).find((t) => t.startsWith(`A new group below the group of ${EDITORS.split("|")[0]}`));
  check(Boolean(below), "a new group below the editors is offered");
  await where.selectOption({ label: below });
  await axe(page, "arrange_1600");
  await page.screenshot({ path: join(artifacts, "arrange-1600x900.png") });
  await page.keyboard.press("Tab");
  await page.keyboard.press("Enter");
  const moved = ["Projects", EDITORS.split("|").filter((t) => t !== "Runs").join("|"), "Runs"];
  await until("Runs in a group of its own", async () => JSON.stringify(await groups(page)) === JSON.stringify(moved));
  await until("focus on the moved tab", async () => (await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))) === "Runs");
  check((await dialog.count()) === 0, "the dialog closed after the move");
  const f6moved = await walk(page, "F6", 2);
  facts.f6_after_move = f6moved;
  check(JSON.stringify(f6moved) === JSON.stringify(["header", "group:Projects"]), `F6 wraps from the new group: ${JSON.stringify(f6moved)}`);

  // Size the files group by typed pixels, then one arrow step; Escape gives focus back.
  const arrange = page.getByRole("button", { name: "Arrange Projects: move it or size its group" });
  await arrange.focus();
  await page.keyboard.press("Enter");
  await page.getByRole("dialog", { name: "Arrange Projects" }).waitFor();
  const width = page.getByLabel("Width");
  await width.fill("420");
  await width.press("Enter");
  await until("the typed width", async () => Math.abs(((await sizeOf(page, "Projects")) ?? { width: 0 }).width - 420) <= 2);
  check((await page.getByTestId("arrange-status").textContent()).includes("420 px wide"), "the dialog says the size");
  await width.press("ArrowUp");
  await until("one arrow step wider", async () => Math.abs(((await sizeOf(page, "Projects")) ?? { width: 0 }).width - 440) <= 2);
  await page.keyboard.press("Escape");
  check(await arrange.evaluate((el) => el === document.activeElement), "Escape returns focus to the Arrange button");
  const runsHeight = page.getByRole("button", { name: "Arrange Runs: move it or size its group" });
  await runsHeight.click();
  const height = page.getByLabel("Height");
  await height.fill("300");
  await height.press("Enter");
  await until("the typed height", async () => Math.abs(((await sizeOf(page, "Runs")) ?? { height: 0 }).height - 300) <= 2);
  await page.getByRole("button", { name: "Close", exact: true }).click();
  const arranged = { groups: await groups(page), projects: await sizeOf(page, "Projects"), runs: await sizeOf(page, "Runs"), editors: await sizeOf(page, "analysis.R") };
  facts.arranged = arranged;
  await noOverflow(page, "arranged_1600");
  await axe(page, "arranged_1600");
  await page.screenshot({ path: join(artifacts, "arranged-1600x900.png") });

  // Remembered: a reload brings back the same groups and sizes.
  const same = async () => {
    const now = { groups: await groups(page), projects: await sizeOf(page, "Projects"), runs: await sizeOf(page, "Runs"), editors: await sizeOf(page, "analysis.R") };
    return JSON.stringify(now.groups) === JSON.stringify(arranged.groups) && near(now.projects, arranged.projects) && near(now.runs, arranged.runs) && near(now.editors, arranged.editors);
  };
  await page.reload();
  await page.getByTestId("who").waitFor({ timeout: 20000 });
  await until("the same layout after a reload", same, 15000);
  facts.after_reload = { groups: await groups(page), projects: await sizeOf(page, "Projects"), runs: await sizeOf(page, "Runs") };

  // A narrow window (the strip) and back: the docked layout is the remembered one again.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await page.evaluate(() => document.activeElement instanceof HTMLElement && document.activeElement.blur());
  const strip = await walk(page, "F6", 4);
  facts.f6_390 = strip;
  check(JSON.stringify(strip) === JSON.stringify(["header", "tabs", "panel", "header"]), `F6 at 390: ${JSON.stringify(strip)}`);
  const stripBack = await walk(page, "Shift+F6", 3);
  check(JSON.stringify(stripBack) === JSON.stringify(["panel", "tabs", "header"]), `Shift+F6 at 390: ${JSON.stringify(stripBack)}`);
  await page.keyboard.press("F6");
  check((await page.evaluate(() => document.activeElement?.getAttribute("aria-selected"))) === "true", "F6 lands on the strip's selected tab");
  await noOverflow(page, "strip_390");
  await axe(page, "strip_390");
  await page.screenshot({ path: join(artifacts, "layout-390x844.png") });
  await page.setViewportSize({ width: 1600, height: 900 });
  await until("the remembered layout after the narrow window", same, 15000);

  // A stale memory (not a layout) falls back to the default groups, without an error.
  await page.evaluate((id) => localStorage.setItem(`rho.dock.${id}`, "{\"grid\": 1"), projectId);
  await page.reload();
  await page.getByTestId("who").waitFor({ timeout: 20000 });
  await until("the default groups when the memory is stale", async () => {
    const g = await groups(page);
    return g.length === 2 && g[0] === "Projects" && g[1].split("|").length === OPENED.length;
  });
  facts.after_stale = await groups(page);
  // A memory naming a panel that is no longer open restores the rest.
  await page.evaluate((id) => {
    const saved = JSON.parse(localStorage.getItem(`rho.dock.${id}`));
    saved.panels["file:gone.R"] = { id: "file:gone.R", contentComponent: "hosted", params: { id: "file:gone.R" }, title: "gone.R" };
    const add = (n) => (n.type === "leaf" ? n.data.views.includes("runs") && n.data.views.push("file:gone.R") : n.data.forEach(add));
    add(saved.grid.root);
    localStorage.setItem(`rho.dock.${id}`, JSON.stringify(saved));
  }, projectId);
  await page.reload();
  await page.getByTestId("who").waitFor({ timeout: 20000 });
  await until("the layout without the panel that is gone", async () => !(await groups(page)).join("|").includes("gone.R") && (await groups(page)).length === 2);
  await context.close();
});

finish();
