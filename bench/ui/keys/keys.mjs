// Issue 14's keystroke, taken apart: the floor (a bare CodeMirror page, extension sets one by one, a WebSocket echo for the service) next to Rho's editor, in the bench's Chromium, 1600x900.
//
// Usage (run.sh sets this up): node keys.mjs with RHO_BIN (a release rho), FLOOR_DIR (the built
// floor page), BENCH_DIR (scratch on disk), KEYS (default 40), SETS (the floor's extension sets,
// `+` joining several), UI_DISTS (comma list of ui builds to serve to Rho's page instead of the
// embedded one, `-` for the embedded one; Chromium's local-network checks are then off, as a
// page Playwright serves counts as public). Prints one JSON line per page.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import { serve } from "./echo.mjs";
import { profile } from "./profile.mjs";

const { chromium } = createRequire(join(process.cwd(), "package.json"))("playwright-core");
const KEYS = Number(process.env.KEYS ?? 40);
const SETS = (process.env.SETS ?? "none,lines,lang,wrap,typing,app,app+css,app+css+contain").split(",");
const DISTS = (process.env.UI_DISTS ?? "-").split(",");
const dir = process.env.BENCH_DIR;
const load = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** A release rho on a scratch root with the bench's project (ui_bench.mjs's files); answers its URL. */
async function startRho(children) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "root"), { recursive: true });
  const state = join(dir, "state");
  const child = spawn(process.env.RHO_BIN, ["--root", join(dir, "root"), "--state-dir", state], { env: { ...process.env, RUST_LOG: "warn" }, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  const url = await new Promise((resolve, reject) => {
    let seen = "";
    const on = (b) => {
      seen += b;
      const m = seen.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    };
    child.stdout.on("data", on);
    child.stderr.on("data", on);
    child.on("exit", (c) => reject(new Error(`rho exited ${c}: ${seen.slice(-2000)}`)));
  });
  await new Promise((r) => setTimeout(r, 500));
  const token = JSON.parse(readFileSync(join(state, "connection.json"), "utf8")).token;
  const res = await fetch(`${url}/api/v2/project.create`, { method: "POST", headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" }, body: JSON.stringify({ name: "p" }) });
  const env = await res.json();
  if (!env.ok) throw new Error(`project.create: ${JSON.stringify(env.error)}`);
  const p = env.value.path;
  mkdirSync(join(p, "data"), { recursive: true });
  writeFileSync(join(p, "analysis.R"), '# Fits response ~ dose.\nd <- read.csv("data/doses.csv")\nfit <- lm(response ~ dose, data = d)\nprint(summary(fit))\n');
  writeFileSync(join(p, "data/doses.csv"), "dose,response\n" + Array.from({ length: 200 }, (_, i) => `${i % 10},${(i * 0.37).toFixed(2)}`).join("\n") + "\n");
  for (let i = 0; i < 20; i++) writeFileSync(join(p, `notes-${String(i).padStart(2, "0")}.md`), `# Note ${i}\n`);
  return url;
}

const children = [];
const flags = (process.env.RHO_BENCH_CHROMIUM_ARGS ?? "--no-sandbox --disable-gpu --disable-dev-shm-usage").split(" ");
if (DISTS.some((d) => d !== "-")) flags.push("--disable-features=LocalNetworkAccessChecks");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true, args: flags });
const echo = await serve(process.env.FLOOR_DIR);
try {
  for (const set of SETS) {
    const r = await profile(browser, `${echo.url}/?ext=${set.replaceAll("+", ",")}`, KEYS);
    console.log(JSON.stringify({ page: `floor ${set}`, load: load(), ...r }));
  }
  const url = await startRho(children);
  for (const dist of DISTS) {
    const r = await profile(browser, `${url}/`, KEYS, { dist: dist === "-" ? null : dist });
    console.log(JSON.stringify({ page: dist === "-" ? "rho" : `rho ${dist}`, load: load(), ...r }));
  }
} finally {
  await browser.close();
  echo.close();
  for (const c of children) c.kill("SIGTERM");
}
