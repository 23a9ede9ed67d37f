//! A command's record in words: its state (with `continuing` and `unknown` explained), who ran it, when and for how long.

import type { CommandView } from "./ops";

const SIGNALS: Record<number, string> = { 1: "SIGHUP", 2: "SIGINT", 3: "SIGQUIT", 6: "SIGABRT", 9: "SIGKILL", 13: "SIGPIPE", 15: "SIGTERM" };

/** `local`, `agent:NAME`, `operator`, `paired…` as a person reads them. */
export function who(by: string): string {
  if (by === "local") return "the local browser";
  if (by.startsWith("agent:")) return `Agent ${by.slice("agent:".length)}`;
  if (by.startsWith("paired")) return "a paired tab";
  return by;
}

export function signalName(n: number): string {
  const name = SIGNALS[n];
  return name ? `signal ${n} (${name})` : `signal ${n}`;
}

/** The state in words. */
export function stateWords(c: CommandView): string {
  const stopping = c.stopRequestedAt ? `, stop asked by ${who(c.stoppedBy ?? "someone")}` : "";
  switch (c.state) {
    case "starting":
      return `starting${stopping}`;
    case "running":
      return `running${stopping}`;
    case "continuing":
      return `continuing: still running after Rho restarted, its output followed again${stopping}`;
    case "unknown":
      return `unknown: Rho lost track of it${c.note ? ` (${c.note})` : ""}; its output up to then is kept`;
    case "exited": {
      const stopped = c.stoppedBy ? `, stopped by ${who(c.stoppedBy)}` : "";
      if (c.signal !== null) return `ended by ${signalName(c.signal)}${stopped}`;
      if (c.exitCode === 0) return `finished (exit 0)${stopped}`;
      if (c.exitCode !== null) return `failed (exit ${c.exitCode})${stopped}`;
      return `did not start${c.note ? `: ${c.note}` : ""}`;
    }
  }
}

/** A duration in words: `850 ms`, `12.3 s`, `4 min 05 s`, `2 h 03 min`. */
export function span(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor(s / 60) % 60).padStart(2, "0")} min`;
}

/** How long it ran (or has run so far, at `now`); `null` before it started. */
export function duration(c: CommandView, now: number): string | null {
  if (!c.startedAt) return null;
  const end = c.endedAt ? Date.parse(c.endedAt) : now;
  const d = span(end - Date.parse(c.startedAt));
  return c.endedAt ? d : `${d} so far`;
}
