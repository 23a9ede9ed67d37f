// End to end of "Connect your agent" in Debian's Chromium against a real `rho` started with the real
// Claude Code CLI: the button runs `session.connect` (a grant and the client's own `mcp add`), the
// panel says the client registered Rho and lists the new grant, with no credential on the page.
//
// Run by tests/it/chromium/ui_connect.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID,
// RHO_ARTIFACTS (RHO_AGENT_TOKEN and RHO_PROJECT_DIR are set but unused: the grant is made here).
// Prints one JSON line of facts; exits 1 on any failure.
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
  watch(page, "connect");
  await page.goto(`${url}/`);
  await page.getByTestId("who").waitFor();
  await page.locator(".dv-tab", { hasText: /^Agent$/ }).click();
  await page.getByRole("button", { name: "Connect Claude Code" }).waitFor();
  check((await page.getByTestId("agent-claude-code").count()) === 0, "no grant before connecting");
  const started = Date.now();
  await page.getByRole("button", { name: "Connect Claude Code" }).click();
  const said = page.getByTestId("connected");
  await until("the panel says the client registered Rho", async () => /^Connected claude-code: its client registered Rho\.$/.test((await said.textContent()) ?? ""), 60000);
  facts.connect_ms = Date.now() - started;
  facts.connected = await said.textContent();
  check((await said.getAttribute("role")) === "status", "the outcome is a status region");
  await until("the new grant is listed", async () => (await page.getByTestId("agent-claude-code").count()) === 1, 15000);
  await until("the instructions say the grant is there now", async () => (await page.locator("section[aria-labelledby=connect-title]").textContent()).includes("claude-code holds a grant now."));
  check(!/rho_[A-Za-z0-9]{20,}|Bearer/.test(await page.locator(".agent").textContent()), "the panel shows no credential");
  await axe(page, "connect_1600");
  await noOverflow(page, "connect_1600");
  await page.screenshot({ path: join(artifacts, "connect-1600x900.png") });
  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
}

finish();
