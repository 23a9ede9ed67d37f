// End to end, live editing and history, in Debian's Chromium against a real `rho`: two tabs and an
// Agent edit one buffer at once and converge; history shows the Agent's version and restores it;
// the service restarts mid-typing without a lost character; a paired tab sees only its folder; a
// page from another origin can neither read nor write; the project view's first render budget.
//
// Run by tests/it/chromium/ui_live.rs with the pinned Node. Environment: RHO_URL, RHO_PROJECT_ID,
// RHO_FILE, RHO_PAIR_LINK (a `rho --pair --project` link), RHO_PAIR_FOLDER, RHO_OTHER_PROJECT (a
// project the paired tab must not see), RHO_ARTIFACTS, and the Agent's MCP client: RHO_MCP_PYTHON,
// RHO_MCP_CLIENT, RHO_BIN, RHO_MCP_FILE (a real grant's connection file: the Agent edits through
// `rho --mcp FILE`). RHO_AGENT_SAMPLES (default 15) Agent edits are timed in the page (decision
// 0414: sent with the grant's bearer, the call the adapter makes; a few through MCP too). It asks the
// test to restart the service by printing `RESTART` and waits for a `RESTARTED` line on stdin.
// Prints one JSON line of facts last; exits 1 on any failure.
import AxeBuilder from "@axe-core/playwright";
import { mkdirSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { chromium } from "playwright-core";
import { clockOffset, epoch, mcpAgent } from "./support/mcpAgent.mjs";

const need = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const url = need("RHO_URL");
const projectId = need("RHO_PROJECT_ID");
const file = need("RHO_FILE");
const pairLink = need("RHO_PAIR_LINK");
const pairFolder = need("RHO_PAIR_FOLDER");
const otherProject = need("RHO_OTHER_PROJECT");
const artifacts = need("RHO_ARTIFACTS");
const SAMPLES = Number(process.env.RHO_AGENT_SAMPLES ?? 15);
mkdirSync(artifacts, { recursive: true });

const failures = [];
const facts = {};
const check = (ok, what) => ok || failures.push(what);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stdin = createInterface({ input: process.stdin });
const lines = stdin[Symbol.asyncIterator]();

/** The Agent: a real MCP client through `rho --mcp FILE` with the grant's connection file. */
const mcp = await mcpAgent(["document.open", "document.read", "document.edit", "document.revision"]);
/** One call as the Agent; while the service restarts the adapter answers `unavailable` (a read)
 *  or `unknown` (an edit, identity kept): the same call is made again. */
async function agent(op, body) {
  for (let attempt = 0; ; attempt++) {
    try {
      return await mcp(op, body);
    } catch (e) {
      if ((e.code !== "unavailable" && e.code !== "unknown") || attempt > 150) throw e;
      await sleep(100);
    }
  }
}

let docId = null;
async function doc() {
  docId ??= (await agent("document.open", { path: file })).id;
  return docId;
}
const serverText = async () => (await agent("document.read", { documentId: await doc() })).text;

/** The Agent inserts `text` at UTF-16 offset `at(now)`, retrying on `stale` like any writer. */
async function agentEdit(text, at = () => 0, tag = "a") {
  for (let i = 0; i < 30; i++) {
    const now = await agent("document.read", { documentId: await doc() });
    const pos = Math.min(at(now.text), now.text.length);
    try {
      return await agent("document.edit", {
        documentId: await doc(),
        expectedVersion: now.version,
        changeId: `e2e-live-${tag}-${i}`,
        edits: [{ start: pos, end: pos, text }],
      });
    } catch (e) {
      if (e.code !== "stale") throw e;
    }
  }
  throw new Error("the Agent's edit stayed stale");
}

const quantile = (xs, q) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const round = (x) => Math.round(x * 10) / 10;

/** The grant's bearer token, from its connection file: the timed edits are the HTTP call the adapter makes. */
const bearer = JSON.parse(readFileSync(need("RHO_MCP_FILE"), "utf8")).token;

/** One Agent edit inserting `text` at the start, sent over HTTP with the grant's bearer; answers `{sent, acked}`. */
async function httpEdit(text, tag) {
  for (let k = 0; k < 20; k++) {
    const now = await agent("document.read", { documentId: await doc() });
    const body = JSON.stringify({ projectId, documentId: await doc(), expectedVersion: now.version, changeId: `${tag}-${k}`, edits: [{ start: 0, end: 0, text }] });
    const sent = epoch();
    const res = await fetch(`${url}/api/v2/document.edit`, { method: "POST", headers: { Authorization: `Bearer ${bearer}`, "Content-Type": "application/json" }, body });
    const env = await res.json();
    const acked = epoch();
    if (env.ok) return { sent, acked };
    if (env.error.code !== "stale") throw new Error(`document.edit: ${env.error.code} ${env.error.message}`);
  }
  throw new Error("the timed edit stayed stale");
}

/** The same edit through `rho --mcp` (the MCP client's and the adapter's own time included). */
async function mcpEdit(text, tag) {
  await agentEdit(text, () => 0, tag);
  return mcp.last;
}

/** `n` Agent edits by `edit` at the top of the buffer, each timed from its send and from its
 *  acknowledgement until tab `page` shows its text (ms, p50 and p90, with every sample). The
 *  page takes the time (a MutationObserver on the editor); its clock is set against this
 *  process's by the shortest round trip. */
async function timeAgentEdits(page, n, edit, name) {
  const clock = await clockOffset(page);
  const send = [];
  const ack = [];
  for (let i = 0; i < n; i++) {
    const marker = `# timed ${name} ${i}`;
    await page.evaluate((m) => {
      const host = document.querySelector(".cm-content");
      window.__visible = null;
      const obs = new MutationObserver(() => {
        if (window.__visible === null && host.textContent.includes(m)) {
          window.__visible = performance.timeOrigin + performance.now();
          obs.disconnect();
        }
      });
      obs.observe(host, { childList: true, subtree: true, characterData: true });
    }, marker);
    const { sent, acked } = await edit(`${marker}\n`, `timed-${name}-${i}`);
    const seen = await (await page.waitForFunction(() => window.__visible, null, { timeout: 10000 })).jsonValue();
    send.push(seen - clock.offset - sent);
    ack.push(seen - clock.offset - acked);
  }
  return {
    samples: n,
    send_p50: round(quantile(send, 0.5)),
    send_p90: round(quantile(send, 0.9)),
    ack_p50: round(quantile(ack, 0.5)),
    ack_p90: round(quantile(ack, 0.9)),
    send_ms: send.map(round),
    ack_ms: ack.map(round),
    clock_rtt_ms: round(clock.rtt),
  };
}

async function until(what, f, ms = 15000) {
  const end = Date.now() + ms;
  for (;;) {
    try {
      if (await f()) return true;
    } catch {
      // not yet
    }
    if (Date.now() > end) {
      failures.push(`timed out: ${what}`);
      return false;
    }
    await sleep(50);
  }
}

/** The text an editor shows (its lines joined; the file has no `\r`). */
const editorText = async (page) => (await page.locator(".cm-content .cm-line").allTextContents()).join("\n");

async function axe(page, name) {
  const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
  facts[`axe_${name}`] = r.violations.length;
  for (const v of r.violations) failures.push(`axe ${name}: ${v.id} ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

async function noOverflow(page, name) {
  const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
  check(o.scroll <= o.inner, `horizontal overflow at ${name}: ${o.scroll} > ${o.inner}`);
}

function watch(page, name) {
  page.on("pageerror", (e) => failures.push(`${name}: page error ${e.message}`));
  page.on("console", (m) => {
    if (/Content Security Policy|Refused to/.test(m.text())) failures.push(`${name}: CSP: ${m.text()}`);
  });
}

async function openTab(context, name) {
  const page = await context.newPage();
  watch(page, name);
  await page.goto(`${url}/`);
  await page.locator(".cm-content").waitFor({ timeout: 20000 });
  await until(`${name} shows the script`, async () => (await editorText(page)).includes("fit <- lm"));
  return page;
}

/** Puts the caret of `page`'s editor at the end of line `n` (1-based) and types `text` key by key. */
async function typeAtLine(page, n, text, delay) {
  await page.locator(".cm-content .cm-line").nth(n - 1).click();
  await page.keyboard.press("End");
  await page.keyboard.type(text, { delay });
}

const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  headless: true,
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"],
});
try {
  const context = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  // Two projects exist (the paired tab must not see the other): these tabs work in this one.
  await context.addInitScript((id) => localStorage.getItem("rho.project") || localStorage.setItem("rho.project", id), projectId);
  const a = await openTab(context, "tab-a");
  const b = await openTab(context, "tab-b");

  // Two tabs and the Agent at once: A types on line 1, B on line 2, the Agent inserts lines at the end.
  const typedA = " # tab A 😀 types";
  const typedB = " # tab B é";
  const agentLines = ["# agent 1\n", "# agent 2\n", "# agent 3\n"];
  const agentDone = (async () => {
    for (const [i, line] of agentLines.entries()) {
      await agentEdit(line, (t) => t.length, `c${i}`);
      await sleep(120);
    }
  })();
  await Promise.all([typeAtLine(a, 1, typedA, 25), typeAtLine(b, 2, typedB, 30), agentDone]);
  const converged = await until("two tabs and the Agent converge", async () => {
    const [ta, tb, ts] = await Promise.all([editorText(a), editorText(b), serverText()]);
    return ta === ts && tb === ts;
  }, 20000);
  const merged = await serverText();
  facts.converged = converged;
  check(merged.split("\n")[0].endsWith(typedA), `tab A's typing is whole on line 1: ${JSON.stringify(merged.split("\n")[0])}`);
  check(merged.split("\n")[1].endsWith(typedB), `tab B's typing is whole on line 2: ${JSON.stringify(merged.split("\n")[1])}`);
  for (const l of agentLines) check(merged.includes(l), `the Agent's ${l.trim()} is in the buffer`);
  check((await a.locator(".cm-foreign-edit").count()) > 0, "tab A marks the Agent's text as another author's");
  await a.screenshot({ path: join(artifacts, "live-two-tabs-1600x900.png") });

  // An Agent edit visible in an open tab (decision 0414): SAMPLES edits sent to the service with
  // the grant's bearer, each timed in the page from its send until tab A shows it; p50 under 50 ms.
  // A few through `rho --mcp` are timed too (kept as facts: they add the client's and adapter's time).
  const timed = await timeAgentEdits(a, SAMPLES, httpEdit, "http");
  facts.agent_visible = timed;
  check(timed.send_p50 < 50, `an Agent edit is visible in an open tab within 50 ms of its send (p50 of ${SAMPLES}): ${JSON.stringify(timed)}`);
  facts.agent_visible_mcp = await timeAgentEdits(a, 5, mcpEdit, "mcp");

  // History: the Agent's version with its author; the diff against now; restore it.
  const agentVersion = (await agentEdit("# history mark\n", () => 0, "hist")).version;
  const markedText = (await agent("document.revision", { documentId: await doc(), version: agentVersion })).text;
  await typeAtLine(a, 3, " # after the mark", 10);
  await until("the later typing reaches the service", async () => (await serverText()).includes("# after the mark"));
  await a.getByRole("button", { name: "History", exact: true }).first().click();
  const entry = a.getByRole("button", { name: new RegExp(`^Version ${agentVersion} · edit · Agent claude-code`) });
  await entry.waitFor({ timeout: 10000 });
  await entry.click();
  await a.getByTestId("history-diff").waitFor({ timeout: 10000 });
  check((await a.getByTestId("history-diff").textContent()).includes("# after the mark"), "the diff shows what changed since");
  await axe(a, "history_1600");
  await noOverflow(a, "history_1600");
  await a.screenshot({ path: join(artifacts, "history-1600x900.png") });
  await a.getByRole("button", { name: `Restore version ${agentVersion}` }).click();
  await until("restoring makes the buffer the Agent's version again", async () => (await serverText()) === markedText);
  await until("tab B shows the restored text", async () => (await editorText(b)) === markedText);
  await a.getByRole("tab", { name: file, exact: true }).click();
  await until("tab A shows the restored text", async () => (await editorText(a)) === markedText);
  // The History panel is part of the remembered layout: a reload brings it back.
  await a.reload();
  await until("the History panel is restored after a reload", async () => (await a.getByRole("tab", { name: /^History/ }).count()) === 1);
  await a.getByRole("tab", { name: file, exact: true }).click();
  await until("tab A shows the text after the reload", async () => (await editorText(a)) === markedText);
  await a.setViewportSize({ width: 390, height: 844 });
  await a.getByRole("tab", { name: /^History/ }).click();
  await a.getByRole("heading", { name: /^History of/ }).waitFor();
  await noOverflow(a, "history_390");
  await axe(a, "history_390");
  await a.screenshot({ path: join(artifacts, "history-390x844.png") });
  await a.getByRole("tab", { name: file, exact: true }).click();
  await a.setViewportSize({ width: 1600, height: 900 });

  // A paired tab (one folder, one-time link) sees only that folder's project.
  const paired = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  const p = await paired.newPage();
  watch(p, "paired");
  await p.goto(pairLink);
  await p.getByTestId("who").waitFor({ timeout: 15000 });
  const who = await p.getByTestId("who").textContent();
  check(who.includes("Paired tab") && who.includes(`project ${pairFolder} only`), `the paired tab says its scope: ${who}`);
  check(!who.includes("/"), `the paired tab is not shown where the folder is on this computer: ${who}`);
  const listed = await p.evaluate(async () => {
    const r = await fetch("/api/v2/project.list", { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" });
    return (await r.json()).value.projects.map((x) => x.id);
  });
  facts.paired_projects = listed.length;
  check(listed.includes(projectId) && !listed.includes(otherProject), `the paired tab lists only its folder's project: ${listed}`);
  const outside = await p.evaluate(async (id) => {
    const r = await fetch("/api/v2/project.entries", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ projectId: id }) });
    return r.status;
  }, otherProject);
  check(outside >= 400, `the paired tab cannot read another folder's project: ${outside}`);
  await p.screenshot({ path: join(artifacts, "paired-1600x900.png") });
  await paired.close();

  // A page served from another origin can neither read nor write.
  const before = await serverText();
  const evil = createServer((_req, res) => {
    res.writeHead(200, { "Content-Type": "text/html" });
    res.end("<!doctype html><title>elsewhere</title><p>another site</p>");
  });
  await new Promise((r) => evil.listen(0, "127.0.0.1", r));
  const evilUrl = `http://127.0.0.1:${evil.address().port}/`;
  const other = await browser.newContext();
  const e = await other.newPage();
  await e.goto(evilUrl);
  const attempts = await e.evaluate(
    async ({ url, projectId, docId, version }) => {
      const out = {};
      try {
        const r = await fetch(`${url}/api/v2/document.read`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ projectId, documentId: docId }) });
        out.read = `status ${r.status}: ${(await r.text()).slice(0, 40)}`;
      } catch (err) {
        out.read = `blocked: ${err}`;
      }
      try {
        // A "simple" request the browser sends without asking first: the service must refuse it.
        await fetch(`${url}/api/v2/document.edit`, {
          method: "POST",
          mode: "no-cors",
          headers: { "Content-Type": "text/plain" },
          body: JSON.stringify({ projectId, documentId: docId, expectedVersion: version, changeId: "evil", edits: [{ start: 0, end: 0, text: "EVIL" }] }),
        });
        out.write = "sent";
      } catch (err) {
        out.write = `blocked: ${err}`;
      }
      try {
        const r = await fetch(`${url}/`, { mode: "cors" });
        out.page = `status ${r.status}`;
      } catch (err) {
        out.page = `blocked: ${err}`;
      }
      return out;
    },
    // The current version: only the origin can make the service refuse this edit, not `stale`.
    { url, projectId, docId: await doc(), version: (await agent("document.read", { documentId: await doc() })).version },
  );
  facts.cross_origin = attempts;
  check(attempts.read.startsWith("blocked"), `another origin cannot read a buffer: ${attempts.read}`);
  check(attempts.page.startsWith("blocked"), `another origin cannot read the app: ${attempts.page}`);
  // The same edit as JSON with that page's Origin (what a browser would send with CORS): refused.
  const forged = await fetch(`${url}/api/v2/document.edit`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Origin: evilUrl.replace(/\/$/, "") },
    body: JSON.stringify({ projectId, documentId: await doc(), expectedVersion: (await agent("document.read", { documentId: await doc() })).version, changeId: "evil-2", edits: [{ start: 0, end: 0, text: "EVIL" }] }),
  });
  facts.cross_origin_status = forged.status;
  check(forged.status === 403, `an edit with another origin is forbidden: ${forged.status}`);
  await sleep(300);
  const after = await agent("document.read", { documentId: await doc() });
  check(after.text === before && !after.text.includes("EVIL"), "another origin's write changed nothing");
  await other.close();
  evil.close();

  // The service restarts mid-typing (same address, by port memory): not one character is lost.
  const typedR = " # typed across a restart 😀 of the service";
  const typing = typeAtLine(b, 1, typedR, 45);
  await sleep(400);
  console.log("RESTART");
  const answer = await lines.next();
  check(String(answer.value ?? "").startsWith("RESTARTED"), `the test restarted the service: ${answer.value}`);
  await typing;
  await until("every character typed across the restart reaches the service", async () => (await serverText()).includes(typedR), 30000);
  await until("both tabs converge after the restart", async () => {
    const [ta, tb, ts] = await Promise.all([editorText(a), editorText(b), serverText()]);
    return ta === ts && tb === ts;
  }, 30000);
  await until("the tab is live again", async () => (await b.locator(".live.on").count()) > 0, 20000);
  await b.screenshot({ path: join(artifacts, "after-restart-1600x900.png") });

  // The first render of the project view, warm: median of 5 reloads until the files list names the
  // script and the editor shows its text. Timed by the page itself (performance.now() since the
  // navigation started, read as soon as both are there), so the test's own polling and reload
  // round trip are not counted; the wall-clock times are kept as facts too.
  // The tab measured is the one in front: a background tab's animation frames are throttled,
  // and the editor lays out in one.
  await a.bringToFront();
  // What the first of the reloads asks the service (a hidden panel that mounts shows here).
  const asked = [];
  const onAsk = (r) => r.url().includes("/api/v2/") && asked.push(r.url().split("/api/v2/")[1].split("?")[0]);
  a.on("request", onAsk);
  const loads = [];
  const walls = [];
  for (let i = 0; i < 5; i++) {
    const start = Date.now();
    await a.reload({ waitUntil: "commit" });
    const at = await a.waitForFunction(
      (name) =>
        [...document.querySelectorAll(".tree button")].some((el) => el.textContent?.includes(name)) &&
        (document.querySelector(".cm-content .cm-line")?.textContent ?? "").length > 0 &&
        performance.now(),
      file,
      { polling: "raf", timeout: 20000 },
    );
    loads.push(Math.round(await at.jsonValue()));
    walls.push(Date.now() - start);
  }
  a.off("request", onAsk);
  facts.first_render_requests = [...new Set(asked)].sort();
  loads.sort((x, y) => x - y);
  walls.sort((x, y) => x - y);
  facts.first_render_ms = loads;
  facts.first_render_wall_ms = walls;
  facts.first_render_median_ms = loads[2];
  check(loads[2] < 500, `the project view's first render (median of 5 warm loads) is under 500 ms: ${loads.join(", ")}`);

  await context.close();
} catch (e) {
  failures.push(`error: ${e.stack ?? e}`);
} finally {
  await browser.close();
  stdin.close();
  await mcp.close();
}

console.log(JSON.stringify({ ok: failures.length === 0, failures, facts }));
process.exit(failures.length === 0 ? 0 : 1);
