// End to end in Chromium against a real `rho` whose conversations can run Rho's own agent on the scripted model with
// the Python SDK test server as an MCP server: the backend choice offers all four, Rho's own agent calls the server's
// echo tool, and its card names the server, the status and the duration, with the raw input and output one click
// away; the tokens it spent are said under the message; /mcp and /doctor typed in the message box show the live
// server and the health rows without sending anything; axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_native.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS. Prints one JSON
// line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need, showPanel as show } from "./support/kit.mjs";

const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
const until = (what, f, ms = 90000) => waitFor(what, f, ms);

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "native");
  await page.goto(`${url}/`);
  await page.locator(".dv-tab", { hasText: /^Conversations$/ }).waitFor({ timeout: 20000 });
  await show(page, "Conversations");
  const box = page.locator("#cv-box");
  await box.waitFor({ timeout: 20000 });
  const last = () => page.getByTestId("cv-message").last();

  // The four backends; Rho's own agent says where its model comes from.
  for (const name of ["Claude Code", "Codex", "Claude Code (CLI)", "Rho's own agent"]) {
    check((await page.getByRole("radio", { name, exact: true }).count()) === 1, `the backend ${name} is offered`);
  }
  await page.getByRole("radio", { name: "Rho's own agent", exact: true }).check();
  facts.rho_help = await page.locator(".cv-backend p").textContent();
  check(/model/.test(facts.rho_help), `Rho's own agent says where its model comes from: ${facts.rho_help}`);

  // A call to the MCP server: the card shows the server, completed, and a duration.
  await box.fill('[[tool: mcp__py__echo|{"text": "from the panel"}]]');
  await box.press("Enter");
  const step = () => last().getByTestId("cv-step");
  await until("the call's card is shown", async () => (await step().count()) === 1);
  await until("the message ends", async () => (await last().getByTestId("cv-state").textContent()).startsWith("finished"));
  facts.card = await step().locator("summary").textContent();
  check(facts.card.includes("MCP server py"), `the card names the server: ${facts.card}`);
  check(facts.card.includes("completed") || facts.card.includes("done"), `the card says the call completed: ${facts.card}`);
  check(/\d+(\.\d)? (ms|s)/.test(await step().getByTestId("cv-call-duration").textContent()), "the card shows the duration");
  check(!(await step().getByTestId("cv-call-output").isVisible()), "the raw output waits for a click");
  await step().locator("summary").click();
  facts.raw_input = await step().getByTestId("cv-call-input").textContent();
  facts.raw_output = await step().getByTestId("cv-call-output").textContent();
  check(facts.raw_input.includes('"text": "from the panel"'), `the raw input, indented: ${facts.raw_input}`);
  check(facts.raw_output.includes("echo: from the panel"), `the raw output: ${facts.raw_output}`);
  facts.spend = await last().getByTestId("cv-spend").textContent();
  check(/Tokens: this answer \d+ in, \d+ out\./.test(facts.spend), `the tokens spent are said: ${facts.spend}`);

  // /mcp and /doctor in the message box: nothing is sent to the Agent.
  const asked = (await page.getByTestId("cv-message").count());
  await box.fill("/mcp");
  await box.press("Enter");
  const surface = page.getByTestId("cv-surface");
  await until("/mcp is shown", async () => (await surface.count()) === 1);
  facts.mcp = await surface.getByTestId("cv-server").first().textContent();
  check(facts.mcp.includes("py") && facts.mcp.includes("connected") && facts.mcp.includes("mcp__py__echo"), `/mcp shows the live server and its tools: ${facts.mcp}`);
  await box.fill("/doctor");
  await box.press("Enter");
  await until("/doctor is shown", async () => (await surface.getByTestId("cv-doctor-provider").count()) === 1);
  facts.doctor = await surface.textContent();
  check(/Model provider\s*ok: anthropic/.test(facts.doctor), `/doctor says the provider answers: ${facts.doctor}`);
  check(/MCP servers\s*ok: 1 configured, 1 connected/.test(facts.doctor), `/doctor's MCP row: ${facts.doctor}`);
  check((await page.getByTestId("cv-message").count()) === asked, "a slash command sends no message");

  await axe(page, "native_1600");
  await noOverflow(page, "native_1600");
  await page.screenshot({ path: join(artifacts, "native-1600x900.png") });

  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await show(page, "Conversations");
  await page.waitForTimeout(300);
  await noOverflow(page, "native_390");
  await axe(page, "native_390");
  await page.screenshot({ path: join(artifacts, "native-390x844.png"), fullPage: true });
});

finish();
