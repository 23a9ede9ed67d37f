// End to end in Chromium against a real `rho` whose conversation runs Rho's own agent on the scripted model with
// server-everything (sampling = "ask") as an MCP server: the server's elicitation form is rendered from its schema
// (defaults pre-filled, constraints as help, labelled controls), a wrong answer is refused naming its field and the
// form stays open, a right one goes to the server; a form declined at 390 wide; the sampling question names the
// server, the messages, the token ceiling and the model, and Allow spends the model (said as servers' sampling).
// The composer's palettes: prompts while typing /mcp:, a server's suggestion for an argument (Tab picks the value
// alone), a missing required argument named with nothing sent, a prompt run; @ offers server resources and picking one
// writes its token, which attaches it; an image result shown on its card. axe and overflow with the form, the question and the palettes open at 1600 and
// 390, screenshots of each.
//
// Run by tests/it/chromium/ui_native.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS, RHO_FORM_TOOL,
// RHO_SAMPLING_TOOL, RHO_IMAGE_TOOL (the exported names). Prints one JSON line of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need, showPanel as show } from "./support/kit.mjs";

const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
const formTool = need("RHO_FORM_TOOL");
const samplingTool = need("RHO_SAMPLING_TOOL");
const imageTool = need("RHO_IMAGE_TOOL");
mkdirSync(artifacts, { recursive: true });

const { failures, facts, finish, check, until: waitFor, axe, noOverflow, watch } = kit();
const until = (what, f, ms = 90000) => waitFor(what, f, ms);

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "questions");
  await page.goto(`${url}/`);
  await page.locator(".dv-tab", { hasText: /^Conversations$/ }).waitFor({ timeout: 20000 });
  await show(page, "Conversations");
  const box = page.locator("#cv-box");
  await box.waitFor({ timeout: 20000 });
  const last = () => page.getByTestId("cv-message").last();
  const ended = async () => (await last().getByTestId("cv-state").textContent()).startsWith("finished");
  await until("the conversation is shown", async () => (await page.getByTestId("cv-message").count()) >= 1);

  // The form: rendered from the schema, defaults pre-filled, help shown, focus on the card.
  await box.fill(`[[tool: ${formTool}]]`);
  await box.press("Enter");
  const form = () => last().getByTestId("cv-form");
  await until("the form is shown", async () => (await form().getByRole("button", { name: "Submit" }).count()) === 1);
  facts.form_title = await form().locator("h4").textContent();
  check(facts.form_title.includes("MCP server ev"), `the form is titled with the server: ${facts.form_title}`);
  const integer = form().getByLabel("Integer", { exact: true });
  check((await integer.inputValue()) === "42", "the integer's default is pre-filled");
  check((await form().getByLabel("Titled Single Select Enum", { exact: true }).inputValue()) === "hero-1", "a choice's default is chosen");
  check(await form().getByRole("checkbox", { name: "Guitar" }).isChecked(), "a multi-choice default is ticked");
  // Top-down in the order the server's schema lists its properties (not sorted by name).
  facts.field_order = await form().locator("[data-field]").evaluateAll((els) => els.map((e) => e.getAttribute("data-field")));
  check(facts.field_order.slice(0, 6).join(",") === "name,check,firstLine,email,homepage,birthdate", `the fields keep the schema's order: ${facts.field_order}`);
  facts.help = await form().locator(".cv-help").first().textContent();
  check((await form().textContent()).includes("maximum: 100"), "the constraints are shown as help");
  await axe(page, "form_1600");
  await noOverflow(page, "form_1600");
  await page.screenshot({ path: join(artifacts, "questions-form-1600x900.png") });

  // Submit without the required name: refused, the field named and focused; the form stays.
  await form().getByRole("button", { name: "Submit" }).click();
  await until("the refusal is said", async () => (await form().getByRole("alert").count()) === 1);
  facts.refused = await form().getByRole("alert").textContent();
  check(facts.refused.includes("`name`") && facts.refused.includes("required"), `the refusal names the field: ${facts.refused}`);
  const name = form().getByRole("textbox", { name: /^String \(required\)/ });
  check(await name.evaluate((el) => el === document.activeElement), "the wrong field has focus");
  check((await name.getAttribute("aria-invalid")) === "true", "the wrong field is marked invalid");
  await name.fill("Ada Lovelace");
  await integer.fill("500");
  await form().getByRole("button", { name: "Submit" }).click();
  await until("the bound is said", async () => ((await form().getByRole("alert").textContent()) ?? "").includes("`integer`"));
  facts.refused_bound = await form().getByRole("alert").textContent();
  await integer.fill("7");
  await integer.press("Enter");
  await until("the message ends after the form", ended);
  facts.answered = await last().textContent();
  check(facts.answered.includes("Favorite Integer: 7") && facts.answered.includes("Name: Ada Lovelace"), `the server got the typed answer: ${facts.answered}`);
  check(/Submit, chosen by/.test(facts.answered), "the answered form is listed with what was chosen");

  // The sampling question: server, messages, ceiling, model; Allow spends the model.
  await box.fill(`[[tool: ${samplingTool}|{"prompt": "hello", "maxTokens": 50}]]`);
  await box.press("Enter");
  const question = () => last().getByTestId("cv-sampling");
  await until("the sampling question is shown", async () => (await question().getByRole("button", { name: "Allow" }).count()) === 1);
  facts.sampling = await question().textContent();
  check(/ev asks to use your model/.test(facts.sampling) && /1 message, a ceiling of 50 tokens, answered by mock-model/.test(facts.sampling), `the question says what it would spend: ${facts.sampling}`);
  await axe(page, "sampling_1600");
  await page.screenshot({ path: join(artifacts, "questions-sampling-1600x900.png") });
  await question().getByRole("button", { name: "Allow" }).click();
  await until("the message ends after sampling", ended);
  facts.spend = await last().getByTestId("cv-spend").textContent();
  check(/servers' sampling \d+ in/.test(facts.spend), `the sampling spend is said: ${facts.spend}`);

  // The slash palette: prompts while typing the command, the server's suggestions in an argument.
  const palette = page.getByTestId("cv-palette");
  const messages = await page.getByTestId("cv-message").count();
  await box.fill("/mcp:ev:a");
  await until("the prompts are offered", async () => ((await palette.textContent()) ?? "").includes("/mcp:ev:args-prompt"));
  facts.slash = await palette.textContent();
  check(/arguments: city \(required\), state/.test(facts.slash), `a prompt's arguments are shown: ${facts.slash}`);
  check((await box.getAttribute("aria-activedescendant")) === "cv-palette-0", "the message box points at the highlighted row");
  await axe(page, "palette_1600");
  await page.screenshot({ path: join(artifacts, "questions-palette-1600x900.png") });
  await box.fill("/mcp:ev:completable");
  await until("one prompt is left", async () => (await palette.getByRole("option").count()) === 1);
  await box.press("Enter");
  check((await box.inputValue()) === "/mcp:ev:completable-prompt ", `Enter picks the command: ${await box.inputValue()}`);
  await box.pressSequentially("department=Eng");
  await until("the server's suggestion is offered", async () => ((await palette.textContent()) ?? "").includes("Engineering"));
  await box.press("Tab");
  check((await box.inputValue()) === "/mcp:ev:completable-prompt department=Engineering", `Tab picks the value alone: ${await box.inputValue()}`);
  // A missing required argument is named and nothing is sent.
  await box.fill("/mcp:ev:args-prompt state=Viken");
  await box.press("Escape");
  await box.press("Enter");
  await until("the missing argument is named", async () => ((await page.getByTestId("cv-note").textContent()) ?? "").includes("`city`"));
  check((await page.getByTestId("cv-message").count()) === messages, "a prompt missing an argument sends nothing");
  await box.fill("/mcp:ev:args-prompt city=Oslo state=Viken");
  await box.press("Escape");
  await box.press("Enter");
  await until("the prompt's turn ends", async () => (await page.getByTestId("cv-message").count()) === messages + 1 && (await ended()));

  // The @ palette: a server resource picked into the message, attached when it is sent.
  await box.fill("summarize @archi");
  await until("the resource is offered", async () => ((await palette.textContent()) ?? "").includes("architecture.md"));
  facts.at = await palette.textContent();
  check(facts.at.includes("ev ·"), `the row names the server: ${facts.at}`);
  await box.press("Enter");
  facts.token = await box.inputValue();
  check(/^summarize @mcp:ev:\S+architecture\.md $/.test(facts.token), `picking writes the resource's token: ${facts.token}`);
  await box.pressSequentially("please");
  await box.press("Enter");
  await until("the message with the resource ends", async () => (await page.getByTestId("cv-message").count()) === messages + 2 && (await ended()));

  // An image result is shown on its card.
  await box.fill(`[[tool: ${imageTool}]]`);
  await box.press("Enter");
  await until("the image call ends", async () => (await page.getByTestId("cv-message").count()) === messages + 3 && (await ended()));
  const img = last().getByTestId("cv-call-image");
  await until("the card shows the image", async () => (await img.count()) === 1 && (await img.evaluate((el) => el.complete && el.naturalWidth > 0)));
  facts.image_alt = await img.getAttribute("alt");
  check(/^The image the tool returned \(image\/png, /.test(facts.image_alt ?? ""), `the image is described: ${facts.image_alt}`);
  await axe(page, "image_1600");
  await page.screenshot({ path: join(artifacts, "questions-image-1600x900.png") });

  // 390 wide: the @ palette, then a form, declined.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("tablist", { name: "Open panels" }).waitFor();
  await show(page, "Conversations");
  await box.fill("@");
  await until("the @ palette at 390", async () => (await palette.getByRole("option").count()) > 1);
  await noOverflow(page, "palette_390");
  await axe(page, "palette_390");
  await page.screenshot({ path: join(artifacts, "questions-palette-390x844.png") });
  await box.press("Escape");
  check((await palette.count()) === 0, "Escape closes the palette");
  await box.fill(`[[tool: ${formTool}]]`);
  await box.press("Enter");
  await until("the form is shown at 390", async () => (await form().getByRole("button", { name: "Decline" }).count()) === 1);
  await page.waitForTimeout(300);
  await noOverflow(page, "form_390");
  await axe(page, "form_390");
  await page.screenshot({ path: join(artifacts, "questions-form-390x844.png"), fullPage: true });
  await form().getByRole("button", { name: "Decline" }).click();
  await until("the message ends after the decline", ended);
  check((await last().textContent()).includes("declined"), "the server was told the person declined");
});

finish();
