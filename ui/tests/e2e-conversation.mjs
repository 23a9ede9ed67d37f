// End to end in Chromium against a real `rho` driving the real Claude Code (claude-agent-acp) on the scripted model:
// a plain answer streams and is summarised, a command asks permission (the card takes focus, Allow, focus back to the
// message box) and its step shows exit code 3, a slow answer is stopped, the plain answer is decided (accepted, then
// needs changes superseding it), and a file the Agent writes with its own tool changes the open editor live;
// axe and overflow at 1600 and 390.
//
// Run by tests/it/chromium/ui_conversation.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS,
// RHO_PROJECT_DIR (the project holds analysis.R, which the app opens in the editor). Prints one JSON line of facts;
// exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need, showPanel as show } from "./support/kit.mjs";

const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
const projectDir = need("RHO_PROJECT_DIR");
/** The text the editor shows (its lines joined). */
const editorText = async (page) => (await page.locator(".cm-content .cm-line").allTextContents()).join("\n");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
const until = (what, f, ms = 90000) => waitFor(what, f, ms);

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "conversation");
  await page.goto(`${url}/`);
  await page.locator(".cm-content").waitFor({ timeout: 20000 });
  await until("the editor shows the script", async () => (await editorText(page)).includes("x <- 1"), 20000);
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
  await until("the slow answer starts streaming", async () => (await messages.count()) === 3 && ((await last().locator(".cv-text").textContent().catch(() => "")) ?? "").includes("word1"));
  await page.getByRole("button", { name: "Stop", exact: true }).click();
  await until("the message is stopped", async () => (await state()).startsWith("stopped"), 30000);
  facts.stopped = await state();
  check((await page.getByRole("button", { name: "Stop", exact: true }).count()) === 0, "Stop is gone once nothing runs");

  // Decisions: the plain answer is accepted, then needs changes (which supersedes the acceptance); both are kept.
  check((await page.locator("details.cv-decide").count()) === 3, "every ended message offers the decision form");
  const first = messages.first();
  await first.locator("details.cv-decide summary").click();
  await first.getByRole("radio", { name: "Accepted" }).check();
  await first.getByRole("button", { name: "Record the decision" }).click();
  await until("the acceptance is recorded", async () => ((await first.locator(".cv-decide [role=status]").textContent()) ?? "").includes("Recorded: Accepted."));
  await until("the decision is listed", async () => (await first.locator(".cv-decisions li").count()) === 1);
  facts.decision_1 = await first.locator(".cv-decisions li").first().textContent();
  check(/^Accepted by the local browser/.test(facts.decision_1), `the decision says who: ${facts.decision_1}`);
  await first.getByRole("radio", { name: "Needs changes" }).check();
  check(await first.getByRole("button", { name: "Record the decision" }).isDisabled(), "needs changes waits for its note");
  await first.getByLabel(/^Note/).fill("Say it in French");
  await first.getByRole("button", { name: "Record the decision" }).click();
  await until("the second decision is listed", async () => (await first.locator(".cv-decisions li").count()) === 2);
  facts.decisions = await first.locator(".cv-decisions li").allTextContents();
  check(facts.decisions[0].includes("(superseded)"), `the acceptance is superseded: ${facts.decisions}`);
  check(facts.decisions[1].includes("Needs changes") && facts.decisions[1].includes("Say it in French"), `the second names its note: ${facts.decisions}`);

  // The Agent writes the open script with its own tool: the editor shows it live, by the conversation's Agent.
  await box.fill(`[[write: ${join(projectDir, "analysis.R")}|y <- 2]]`);
  await box.press("Enter");
  await until("the write asks permission", async () => (await card.count()) === 1);
  await card.locator("button.cv-allow").first().click();
  await until("the write's message ends", async () => (await state()).startsWith("finished"));
  facts.kept = await last().getByTestId("cv-kept").textContent();
  check(facts.kept.includes("analysis.R"), `the message keeps the file it wrote: ${facts.kept}`);
  await show(page, "analysis.R");
  await until("the editor shows the Agent's edit", async () => (await editorText(page)) === "y <- 2", 20000);
  facts.editor_status = await page.getByTestId("editor-status").textContent();
  check(/saved/.test(facts.editor_status) && /agent:conversation-/.test(facts.editor_status), `the editor says who changed it: ${facts.editor_status}`);
  await page.screenshot({ path: join(artifacts, "conversation-edit-1600x900.png") });
  await show(page, "Conversations");

  await first.locator("details.cv-decide summary").scrollIntoViewIfNeeded();
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
