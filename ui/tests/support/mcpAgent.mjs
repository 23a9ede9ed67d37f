// The browser suites' Agent as a real MCP client: the Python MCP SDK (mcp/tests/adapter/agent_client.py, scenario `relay`) driving `rho --mcp FILE`.
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";

/** Now on the wall clock with sub-millisecond precision (the page's clock is compared with it). */
export const epoch = () => performance.timeOrigin + performance.now();

/**
 * Starts the Agent: `python agent_client.py relay RHO FILE auto OPS`, which resolves `operations`
 * through the adapter and then makes one `rho_call` per request. Answers `agent(operation, input)`
 * (the value, or a throw carrying the refusal's `code`); `agent.last` holds the newest call's
 * `{sent, acked}` times (epoch ms: the request handed to the client, its answer read back), and
 * `agent.close()` ends the client. Environment: RHO_MCP_PYTHON, RHO_MCP_CLIENT, RHO_BIN, RHO_MCP_FILE.
 */
export async function mcpAgent(operations, env = process.env) {
  const need = (k) => {
    if (!env[k]) throw new Error(`${k} is not set`);
    return env[k];
  };
  // Only what the client needs: the adapter must not see this script's RHO_* settings.
  const child = spawn(need("RHO_MCP_PYTHON"), [need("RHO_MCP_CLIENT"), "relay", need("RHO_BIN"), need("RHO_MCP_FILE"), "auto", operations.join(",")], {
    stdio: ["pipe", "pipe", "inherit"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: process.env.HOME ?? "/tmp", RUST_LOG: "warn" },
  });
  const waiting = new Map();
  let ready;
  let failed;
  const started = new Promise((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  const lines = createInterface({ input: child.stdout });
  lines.on("line", (line) => {
    if (line === "READY") return ready();
    let msg;
    try {
      msg = JSON.parse(line);
    } catch {
      return;
    }
    const w = msg && waiting.get(msg.id);
    if (!w) return;
    waiting.delete(msg.id);
    w.acked = epoch();
    w.resolve(msg);
  });
  const ended = new Promise((resolve) => child.on("exit", resolve));
  ended.then((code) => {
    failed(new Error(`the MCP client exited (${code}) before it was ready`));
    for (const w of waiting.values()) w.reject(new Error(`the MCP client exited (${code})`));
    waiting.clear();
  });
  const timer = setTimeout(() => failed(new Error("the MCP client was not ready in 60 s")), 60000);
  await started.finally(() => clearTimeout(timer));

  let next = 0;
  async function agent(operation, input) {
    const id = ++next;
    const w = { sent: 0, acked: 0 };
    const answered = new Promise((resolve, reject) => Object.assign(w, { resolve, reject }));
    waiting.set(id, w);
    w.sent = epoch();
    child.stdin.write(`${JSON.stringify({ id, operation, input })}\n`);
    const msg = await answered;
    agent.last = { sent: w.sent, acked: w.acked };
    if (!msg.ok) throw Object.assign(new Error(`${operation}: ${msg.error.code} ${msg.error.message}`), { code: msg.error.code, details: msg.error.details });
    return msg.value;
  }
  agent.last = { sent: 0, acked: 0 };
  agent.close = async () => {
    child.stdin.end();
    return ended;
  };
  return agent;
}

/**
 * The page's wall clock minus this process's (ms), from the probe with the shortest round trip:
 * a time the page took with `epoch` there minus the offset is comparable with `epoch()` here.
 */
export async function clockOffset(page, probes = 7) {
  let best = null;
  for (let i = 0; i < probes; i++) {
    const before = epoch();
    const there = await page.evaluate(() => performance.timeOrigin + performance.now());
    const after = epoch();
    if (best === null || after - before < best.rtt) best = { rtt: after - before, offset: there - (before + after) / 2 };
  }
  return best;
}
