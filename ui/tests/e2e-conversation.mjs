// End to end in Chromium against a real `rho` driving the real Claude Code (claude-agent-acp) on the scripted model:
// a plain answer streams and is summarised, a command asks permission (the card takes focus, Allow, focus back to the
// message box) and its step shows exit code 3, a slow answer is stopped; axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_conversation.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS (the others of
// tests/it/support/browser.rs are set but unused). Prints one JSON line of facts; exits 1 on any failure.
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
  watch(page, "conversation");
  await page.goto(`${url}/`);
  await page.locator(".dv-tab", { hasText: /^Conversations$/ }).waitFor({ timeout: 20000 });
  await show(page, "Conversations");
  const box = page.locator("#cv-box");
  await box.waitFor({ timeout: 20000 });
  const messages = page.getByTestId("cv-message");
  const last = () => messages.last();
  const state = () => last().getByTestId("cv-state").textContent();

  // A plain answer: Enter sends, the text streams into the log, one short summary when it ends.
  check(await page.getByRole("radio", { name: "Claude Code" }).isChecked(), "Claude Code is the default backend");
  await page.getByRole("checkbox", { name: /Ask me before each command/ }).check();
  await box.fill("Say hello");
  await box.press("Shift+Enter");
  check((await box.inputValue()) === "Say hello\n", "Shift+Enter is a new line, not a send");
  await box.fill("Say hello");
  await box.press("Enter");
  await until("the plain answer streams in", async () => (await last().textContent()).includes("Hello from the scripted mock model."));
  await until("the plain answer ends", async () => (await state()).startsWith("finished"));
  check((await box.inputValue()) === "", "the box is empty after sending");
  facts.announced_plain = await page.getByTestId("cv-announce").textContent();
  check(/^Claude Code finished: \d+ words?\.$/.test(facts.announced_plain), `a short summary is announced: ${facts.announced_plain}`);
  check((await page.locator("[data-testid=cv-item]").count()) === 1, "the list shows the conversation");
  facts.list_item = await page.locator("[data-testid=cv-item]").first().textContent();
  check(facts.list_item.includes("Say hello") && facts.list_item.includes("Claude Code"), `the list item names title and backend: ${facts.list_item}`);

  // A command: the permission card takes focus with the Agent's own choices; Allow; focus back; exit code 3 kept.
  await box.fill("[[bash: echo checking; exit 3]]");
  await box.press("Enter");
  const card = page.getByTestId("cv-permission");
  await until("the permission card is shown", async () => (await card.count()) === 1);
  await until("the card takes focus", async () => page.evaluate(() => document.activeElement?.getAttribute("data-testid") === "cv-permission"), 5000);
  facts.options = await card.locator("button").allTextContents();
  check(facts.options.length >= 2, `the card offers the Agent's options: ${facts.options}`);
  await axe(page, "conversation_permission_1600");
  await page.screenshot({ path: join(artifacts, "conversation-permission-1600x900.png") });
  await card.locator("button.cv-allow").first().click();
  await until("focus returns to the message box", async () => page.evaluate(() => document.activeElement?.id === "cv-box"), 5000);
  await until("the command's message ends", async () => (await state()).startsWith("finished"));
  const step = last().getByTestId("cv-step").first();
  facts.step = await step.textContent();
  check(/exit code 3/.test(facts.step), `the step shows its exit code: ${facts.step}`);
  check(facts.step.includes("exit 3"), `the step shows its command: ${facts.step}`);
  await step.locator("summary").click();
  facts.exit = await step.getByTestId("cv-exit").textContent();
  check(facts.exit === "3", `the expanded step's exit code: ${facts.exit}`);
  facts.asked = await last().locator(".cv-asked").textContent();
  check(/chosen by the local browser/.test(facts.asked), `the permission's outcome is kept: ${facts.asked}`);

  // Stop while text streams: Stop is offered while running; the message ends as stopped.
  await box.fill("[[slow]]");
  await box.press("Enter");
  await until("the slow answer starts streaming", async () => (await last().locator(".cv-text").count()) > 0);
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await until("the message is stopped", async () => (await state()).startsWith("stopped"), 30000);
  facts.stopped = await state();
  check((await page.getByRole("button", { name: "Stop", exact: true }).count()) === 0, "Stop is gone once nothing runs");

  // Decisions (conversation.decide) are not served yet: the form is offered on ended messages only.
  check((await messages.first().locator("details.cv-decide").count()) === 1, "an ended message offers the decision form");
  check((await page.locator("details.cv-decide").count()) === 3, "every ended message offers it");

  await axe(page, "conversation_1600");
  await noOverflow(page, "conversation_1600");
  await page.screenshot({ path: join(artifacts, "conversation-1600x900.png") });

  // 390 px: the strip, no overflow, axe.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await show(page, "Conversations");
  await page.waitForTimeout(300);
  await noOverflow(page, "conversation_390");
  await axe(page, "conversation_390");
  await page.screenshot({ path: join(artifacts, "conversation-390x844.png"), fullPage: true });
});

finish();
