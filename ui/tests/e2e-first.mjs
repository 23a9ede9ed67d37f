// End to end of a first start in Debian's Chromium: the address `rho` opened (or printed) lands in the
// example project with its script in the editor and its table beside it, axe clean.
//
// Run by tests/it/chromium/ui_first.rs with the pinned Node. Environment: RHO_URL (what `rho` handed
// the browser opener), RHO_ARTIFACTS. Prints one JSON line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium } from "playwright-core";
import { kit } from "./support/kit.mjs";

const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const { failures, facts, finish, check, until, axe, noOverflow, watch } = kit();

const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "first");
  await page.goto(url);
  await page.getByTestId("who").waitFor();
  await until("the example project is open", async () => (await page.locator("header .project").textContent()) === "example");
  await until("its script is in the editor", async () => ((await page.locator(".cm-content").textContent()) ?? "").includes("read.csv"), 20000);
  const tabs = await page.locator(".dv-tab").allTextContents();
  facts.tabs = tabs.map((t) => t.trim());
  check(facts.tabs.includes("analysis.R") && facts.tabs.includes("data.csv"), `the script and the table are open: ${facts.tabs}`);
  await page.locator(".dv-tab", { hasText: /^data\.csv$/ }).click();
  // The example's table is not registered: the form proposes its types for the person to confirm.
  await until("the table tab offers its registration", async () => (await page.getByRole("button", { name: /Confirm and register|Record the file and read a sample/ }).count()) > 0, 20000);
  await axe(page, "first_1600");
  await noOverflow(page, "first_1600");
  await page.screenshot({ path: join(artifacts, "first-start-1600x900.png") });
  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
}

finish();
