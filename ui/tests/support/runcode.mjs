// Runs the app's "copy as" code for real: R with readr and dplyr (Rscript), Python with pandas (the test venv), in the project folder; answers the keys of the rows it ends with.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

const peers = process.env.RHO_MCP_PEERS ?? join(homedir(), ".cache/rho-test/mcp-peers");
/** The pandas venv ui/tests/setup.sh installs (a missing one fails, never skips). */
export const pandasPython = join(peers, "venv-pandas/bin/python");

/** Each key of the final `df` on its own line, behind a marker, so the code's own output is ignored. */
const MARK = "@@KEY@@";
function keysOf(out) {
  return out
    .split("\n")
    .filter((l) => l.startsWith(MARK))
    .map((l) => l.slice(MARK.length));
}

/** Runs the dplyr `code` in `dir` and answers the values of column `key` of its `df`, in order. */
export function runDplyr(code, dir, key) {
  const script = `${code}\nwriteLines(paste0("${MARK}", df[[${JSON.stringify(key)}]]))\n`;
  return keysOf(execFileSync("Rscript", ["--vanilla", "-e", script], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}

/** Runs the pandas `code` in `dir` and answers the values of column `key` of its `df`, in order. */
export function runPandas(code, dir, key) {
  if (!existsSync(pandasPython)) throw new Error(`pandas is missing at ${pandasPython}: run ui/tests/setup.sh`);
  const script = `${code}\nfor k in df[${JSON.stringify(key)}]:\n    print(${JSON.stringify(MARK)} + str(k))\n`;
  return keysOf(execFileSync(pandasPython, ["-c", script], { cwd: dir, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
}
