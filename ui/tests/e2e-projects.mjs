// End to end of the Projects panel in Debian's Chromium against a real `rho` whose projects folder is empty: the
// empty screen says how to create or open a project (1600 and 390 px); a project is created and a folder opened
// from the panel; a name taken and a folder that is not there are refused in words and change nothing.
//
// Run by tests/it/chromium/ui_projects.rs with the pinned Node. Environment: RHO_URL, RHO_ARTIFACTS. The
// projects folder holds one folder that is not a project yet, beta/ with notes.R. Prints one JSON line
// of facts; exits 1 on any failure.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { inChromium, kit, need } from "./support/kit.mjs";

const url = need("RHO_URL");
const artifacts = need("RHO_ARTIFACTS");
mkdirSync(artifacts, { recursive: true });
const { failures, facts, finish, check, until, axe, noOverflow, watch } = kit();

/** The projects the service lists to this machine's user. */
const listed = async () => {
  const r = await fetch(`${url}/api/v2/project.list`, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
  return (await r.json()).value.projects.map((p) => p.name).sort();
};

await inChromium(failures, async (browser) => {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const page = await context.newPage();
  watch(page, "projects");
  await page.goto(`${url}/`);
  await page.getByTestId("who").waitFor();

  // An empty projects folder: what to do, and the two forms to do it.
  const empty = page.getByText("No projects yet. Create one below, or open a folder that is already inside the projects folder.");
  await empty.waitFor({ timeout: 15000 });
  check((await page.locator("header .project").textContent()) === "No project open", "the header says no project is open");
  check((await page.locator(".dv-tab").count()) === 1, "only the Projects panel is open");
  check(await page.getByLabel("New project name").isVisible(), "the create form is there");
  check(await page.getByLabel("Open a folder (relative to the projects folder)").isVisible(), "the open form is there");
  await axe(page, "empty_1600");
  await noOverflow(page, "empty_1600");
  await page.screenshot({ path: join(artifacts, "empty-1600x900.png") });
  await page.setViewportSize({ width: 390, height: 844 });
  await empty.waitFor();
  await axe(page, "empty_390");
  await noOverflow(page, "empty_390");
  await page.screenshot({ path: join(artifacts, "empty-390x844.png") });
  await page.setViewportSize({ width: 1600, height: 900 });

  // Create: the new project is selected, its (empty) files shown, its panels open.
  await page.getByLabel("New project name").fill("alpha");
  await page.getByRole("button", { name: "Create", exact: true }).click();
  await until("alpha is the open project", async () => (await page.locator("header .project").textContent()) === "alpha");
  await until("alpha's files: none yet", async () => (await page.getByText("This folder is empty.").count()) === 1);
  check((await page.getByRole("button", { name: "alpha" }).getAttribute("aria-current")) === "true", "alpha is marked current in the list");
  await until("alpha's panels open", async () => (await page.locator(".dv-tab", { hasText: /^Runs$/ }).count()) === 1);
  await axe(page, "created_1600");
  await page.screenshot({ path: join(artifacts, "created-1600x900.png") });

  // The same name again: refused, said, nothing changed.
  await page.getByLabel("New project name").fill("alpha");
  await page.getByRole("button", { name: "Create", exact: true }).click();
  const alert = page.locator(".projects [role=alert]");
  await until("the refusal is said", async () => ((await alert.textContent().catch(() => "")) ?? "").length > 0);
  facts.duplicate = await alert.textContent();
  check(JSON.stringify(await listed()) === JSON.stringify(["alpha"]), "a refused create changes nothing");

  // Open a folder that is there: beta becomes a project with its file; the file opens in the editor.
  await page.getByLabel("Open a folder (relative to the projects folder)").fill("beta");
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await until("beta is the open project", async () => (await page.locator("header .project").textContent()) === "beta");
  await until("alert cleared", async () => (await alert.count()) === 0);
  await page.getByRole("button", { name: /^notes\.R/ }).click();
  await until("beta's notes in the editor", async () => ((await page.locator(".cm-content").textContent()) ?? "").includes("beta's notes"), 20000);
  await axe(page, "opened_1600");
  await page.screenshot({ path: join(artifacts, "opened-1600x900.png") });

  // A folder that is not there: refused in words, nothing changed.
  await page.getByLabel("Open a folder (relative to the projects folder)").fill("nowhere");
  await page.getByRole("button", { name: "Open", exact: true }).click();
  await until("the missing folder is said", async () => /nowhere|not found|no such/i.test((await alert.textContent().catch(() => "")) ?? ""));
  facts.missing = await alert.textContent();
  check((await page.locator("header .project").textContent()) === "beta", "a refused open leaves beta open");
  check(JSON.stringify(await listed()) === JSON.stringify(["alpha", "beta"]), `the service lists alpha and beta: ${await listed()}`);

  // Back to alpha from the list.
  await page.getByRole("button", { name: "alpha" }).click();
  await until("alpha again", async () => (await page.locator("header .project").textContent()) === "alpha");
  await context.close();
});

finish();
