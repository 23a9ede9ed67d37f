// Keystrokes in a page's CodeMirror: keydown -> the `document.edit` answer taken by the page (the bench's timing), with the page's main-thread CPU per keystroke from a Chromium trace.
import { existsSync, readFileSync } from "node:fs";

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const round = (x) => Math.round(x * 100) / 100;
const CATEGORIES = "devtools.timeline,disabled-by-default-devtools.timeline";
/** The trace events summed per keystroke (a Layout or style recalculation inside a script or event is "forced"). */
const KINDS = ["FireAnimationFrame", "UpdateLayoutTree", "Layout", "PrePaint", "Paint", "Layerize", "Commit", "FunctionCall", "HitTest"];

/** In the page before its scripts: timestamps of each keydown, beforeinput and edit message (ui_bench.mjs's own timing, plus trace marks). */
function instrument() {
  window.__edits = [];
  window.__keys = [];
  window.__inputs = [];
  const sent = new Map();
  const Native = window.WebSocket;
  class Timed extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("open", () => (window.__socketOpen = true));
      this.addEventListener("message", (ev) => {
        const at = performance.now();
        console.timeStamp("rho-ack");
        const id = JSON.parse(ev.data).id;
        if (sent.has(id)) window.__edits.push({ start: sent.get(id), end: at });
        sent.delete(id);
      });
    }
    send(data) {
      const m = JSON.parse(data);
      if (m.op === "document.edit") sent.set(m.id, performance.now());
      return super.send(data);
    }
  }
  window.WebSocket = Timed;
  document.addEventListener(
    "keydown",
    () => {
      console.timeStamp("rho-key");
      const k = { at: performance.now(), frame: null };
      window.__keys.push(k);
      requestAnimationFrame(() => (k.frame = performance.now()));
    },
    true,
  );
  let start = 0;
  window.addEventListener("beforeinput", () => (start = performance.now()), true);
  window.addEventListener("beforeinput", () => window.__inputs.push({ start, end: performance.now() }), false);
}

/** Serves the app's `/` and `/assets/*` from the folder `dist` (another ui build against the same binary; `/` keeps the service's headers). */
async function useDist(page, dist) {
  const types = { js: "text/javascript", css: "text/css", html: "text/html" };
  await page.route(
    (u) => u.pathname === "/" || u.pathname.startsWith("/assets/"),
    async (route) => {
      const path = new URL(route.request().url()).pathname;
      if (path === "/") return route.fulfill({ response: await route.fetch(), body: readFileSync(`${dist}/index.html`, "utf8") });
      const file = `${dist}${path}`;
      if (!existsSync(file)) return route.fulfill({ status: 404 });
      return route.fulfill({ status: 200, contentType: types[file.split(".").pop()] ?? "application/octet-stream", body: readFileSync(file) });
    },
  );
}

/** `keys` keystrokes at the end of the editor at `url` (1600x900), each waiting for its answer; p50 (p90) of each figure and the trace's CPU per keystroke. */
export async function profile(browser, url, keys, { dist = null } = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1600, height: 900 } });
  await ctx.addInitScript(instrument);
  const page = await ctx.newPage();
  if (dist) await useDist(page, dist);
  await page.goto(url);
  const content = page.locator(".cm-content");
  await content.waitFor({ timeout: 60000 });
  await page.waitForFunction(() => (document.querySelector(".cm-content")?.textContent ?? "").includes("read.csv"), null, { timeout: 60000 });
  await page.waitForFunction(() => window.__socketOpen === true, null, { timeout: 20000 });
  await content.click();
  await page.keyboard.press("Control+End");
  await sleep(300);
  const cdp = await ctx.newCDPSession(page);
  const events = [];
  cdp.on("Tracing.dataCollected", (e) => events.push(...e.value));
  const complete = new Promise((r) => cdp.on("Tracing.tracingComplete", r));
  await cdp.send("Tracing.start", { categories: CATEGORIES, transferMode: "ReportEvents" });
  const rows = [];
  for (let i = 0; i < keys; i++) {
    const before = await page.evaluate(() => window.__edits.length);
    await page.keyboard.press("x");
    const end = Date.now() + 10000;
    while ((await page.evaluate(() => window.__edits.length)) <= before && Date.now() < end) await sleep(2);
    const r = await page.evaluate(() => ({ k: window.__keys.at(-1), e: window.__edits.at(-1), input: window.__inputs.at(-1) }));
    if (!r.e || r.e.end < r.k.at) throw new Error(`keystroke ${i} was not answered on the socket`);
    rows.push({
      key_to_ack: r.e.end - r.k.at,
      key_to_send: r.e.start - r.k.at,
      beforeinput: r.input && r.input.start >= r.k.at ? r.input.end - r.input.start : NaN,
      key_to_frame: r.k.frame === null ? NaN : r.k.frame - r.k.at,
    });
    await sleep(20);
  }
  await cdp.send("Tracing.end");
  await complete;
  await ctx.close();
  const out = {};
  for (const k of Object.keys(rows[0])) {
    const xs = rows.map((x) => x[k]).filter((x) => !Number.isNaN(x));
    out[k] = xs.length ? `${round(quantile(xs, 0.5))} (${round(quantile(xs, 0.9))})` : null;
  }
  return { ...out, cpu_ms_p50: cpuPerKeystroke(events) };
}

/** The main thread's CPU time (trace `tdur`) from each keydown's mark to its answer's, by kind; p50 over keystrokes. */
function cpuPerKeystroke(events) {
  const isMark = (e) => e.name === "TimeStamp" && /^rho-(key|ack)$/.test(e.args?.data?.message ?? "");
  const marks = events.filter(isMark).sort((a, b) => a.ts - b.ts);
  if (!marks.length) return null;
  const { pid, tid } = marks[0];
  const main = events.filter((e) => e.pid === pid && e.tid === tid && e.ph === "X" && e.dur !== undefined);
  const tasks = main.filter((e) => e.name === "RunTask");
  const per = [];
  marks.forEach((m, i) => {
    if (m.args.data.message !== "rho-key") return;
    const ack = marks.slice(i + 1).find((x) => x.args.data.message === "rho-ack");
    if (!ack) return;
    const from = m.ts - 300;
    const inWindow = main.filter((e) => e.ts >= from && e.ts <= ack.ts);
    const inside = (e, names) => inWindow.some((p) => p !== e && names.includes(p.name) && p.ts <= e.ts && p.ts + p.dur >= e.ts + e.dur);
    const s = { tasks: 0 };
    const add = (k, e) => (s[k] = (s[k] ?? 0) + (e.tdur ?? e.dur) / 1000);
    for (const t of tasks) if (t.ts >= from && t.ts <= ack.ts) add("tasks", t);
    for (const e of inWindow) {
      if (e.name === "EventDispatch") add(`event:${e.args?.data?.type}`, e);
      else if (KINDS.includes(e.name)) {
        const forced = (e.name === "Layout" || e.name === "UpdateLayoutTree") && inside(e, ["EventDispatch", "FireAnimationFrame", "FunctionCall"]);
        add(forced ? `${e.name}(forced)` : e.name, e);
      }
    }
    per.push(s);
  });
  const out = { keystrokes: per.length };
  for (const k of [...new Set(per.flatMap((s) => Object.keys(s)))].sort()) out[k] = round(quantile(per.map((s) => s[k] ?? 0), 0.5));
  return out;
}
