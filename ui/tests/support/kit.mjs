// What every browser end-to-end script shares: the failures and facts it prints, waiting with a deadline, axe, overflow and CSP watching.
import AxeBuilder from "@axe-core/playwright";

/** A fresh kit: `failures` and `facts` are what the script prints as its last line. */
export function kit() {
  const failures = [];
  const facts = {};
  const check = (ok, what) => {
    if (!ok) failures.push(what);
  };

  /** Polls `f` every 50 ms until it is true (a throw counts as false); a timeout is a failure. */
  async function until(what, f, ms = 10000) {
    const end = Date.now() + ms;
    for (;;) {
      if (await Promise.resolve().then(f).catch(() => false)) return true;
      if (Date.now() > end) {
        failures.push(`timed out: ${what}`);
        return false;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** axe through the WCAG 2.2 AA tags; every violation is a failure, the count a fact. */
  async function axe(page, name) {
    const r = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa"]).analyze();
    facts[`axe_${name}`] = r.violations.length;
    for (const v of r.violations) {
      failures.push(`axe ${name}: ${v.id} (${v.impact}) ${v.help}: ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
    }
  }

  async function noOverflow(page, name) {
    const o = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, inner: window.innerWidth }));
    facts[`overflow_${name}`] = o;
    check(o.scroll <= o.inner, `horizontal overflow at ${name}: ${o.scroll} > ${o.inner}`);
  }

  /** Records CSP violations and page errors of a page. */
  function watch(page, name) {
    page.on("pageerror", (e) => failures.push(`${name}: page error ${e.message}`));
    page.on("console", (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) failures.push(`${name}: CSP: ${m.text()}`);
    });
  }

  /** Prints the one JSON line of facts and exits 1 on any failure. */
  function finish() {
    console.log(JSON.stringify({ ok: failures.length === 0, failures, facts }));
    process.exit(failures.length === 0 ? 0 : 1);
  }

  return { failures, facts, finish, check, until, axe, noOverflow, watch };
}

/** `agent(op, body)`: one call with the Agent's bearer token on its project; a refusal throws with its `code`. */
export function agentCaller(url, token, projectId) {
  return async function agent(op, body) {
    const res = await fetch(`${url}/api/v2/${op}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ projectId, ...body }),
    });
    const env = await res.json();
    if (!env.ok) throw Object.assign(new Error(`${op}: ${env.error.code} ${env.error.message}`), { code: env.error.code });
    return env.value;
  };
}

/** An environment variable the script needs; a missing one throws. */
export function need(name) {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
}

/** Brings a panel forward by its title: a dockview tab at 768 px and wider, a strip tab below. */
export async function showPanel(page, title) {
  const strip = page.getByRole("tablist", { name: "Open panels" });
  if (await strip.isVisible().catch(() => false)) await page.getByRole("tab", { name: title, exact: true }).click();
  else await page.locator(".dv-tab", { hasText: new RegExp(`^${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`) }).click();
}
