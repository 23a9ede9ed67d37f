//! A conversation's record in words: backends, states, stop reasons, step categories, permission choices, and the short summary said when a message ends.

import type { Backend, Conversation, Message, Permission, Step } from "./ops";
import { answerText } from "./model";

export const BACKEND_NAME: Record<Backend, string> = { claude: "Claude Code", codex: "Codex" };
export const backendName = (b: string) => (b === "claude-cli" ? "Claude Code (CLI)" : (BACKEND_NAME[b as Backend] ?? b));

/** `local`, `paired:…`, `agent:…` as a person reads them. */
export function who(by: string | null): string {
  if (!by) return "someone";
  if (by === "local") return "the local browser";
  if (by.startsWith("paired")) return "a paired tab";
  if (by.startsWith("agent:")) return `the Agent ${by.slice("agent:".length)}`;
  return by;
}

export function conversationState(c: Conversation): string {
  switch (c.state) {
    case "idle":
      return "idle";
    case "running":
      return "answering";
    case "waiting":
      return "waiting for your permission";
    case "needs-choice":
      return "needs your choice";
  }
}

export const UNKNOWN = "Rho stopped while this message ran; its outcome is unknown, nothing was re-sent.";

const STOP: Record<string, string> = {
  end_turn: "finished",
  cancelled: "stopped",
  max_tokens: "ended: the model's output limit was reached",
  max_turn_requests: "ended: the step limit for one message was reached",
  refusal: "ended: the Agent refused",
  error: "ended with an error",
};

/** The message's state or end in words. */
export function messageState(m: Message): string {
  if (m.state === "unknown") return UNKNOWN;
  if (m.state === "running") return m.stopping ? "stopping (the Agent has not confirmed yet)" : "running";
  const why = m.stopReason ? (STOP[m.stopReason] ?? `ended (${m.stopReason})`) : "ended";
  return m.error ? `${why}: ${m.error.message}` : why;
}

const CATEGORY: Record<string, string> = {
  read: "Read",
  edit: "Edit",
  delete: "Delete",
  move: "Move",
  search: "Search",
  execute: "Command",
  think: "Think",
  fetch: "Fetch",
  other: "Tool",
};
export const categoryLabel = (c: string) => CATEGORY[c] ?? "Tool";

const STATUS: Record<string, string> = { pending: "waiting", in_progress: "running", completed: "done", failed: "failed" };

/** A step's status in words, with the exit code of a command when there is one. */
export function stepStatus(s: Step): string {
  const base = STATUS[s.status] ?? s.status;
  return s.exitCode === null ? base : `${base}, exit code ${s.exitCode}`;
}

/** What a permission came to, in words (for a permission no longer pending). */
export function permissionOutcome(p: Permission): string {
  if (p.state === "pending") return "waiting for your choice";
  if (p.state === "cancelled") return "cancelled (the message was stopped or ended first)";
  const name = p.options.find((o) => o.optionId === p.chosen)?.name ?? p.chosen ?? "a choice";
  return `${name}, chosen by ${who(p.chosenBy)}`;
}

const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A short summary of a message that just ended (said once, never per token). */
export function endSummary(m: Message, backend: string): string {
  const name = backendName(backend);
  if (m.state === "unknown") return `${name}: ${UNKNOWN}`;
  const words = answerText(m).split(/\s+/).filter(Boolean).length;
  const steps = m.parts.filter((p) => p.kind === "step").length;
  const bits = [count(words, "word", "words")];
  if (steps > 0) bits.push(count(steps, "step", "steps"));
  return `${name} ${messageState(m)}: ${bits.join(", ")}.`;
}

/** When, short: the time today, else the date and time. */
export function when(iso: string | null, now = new Date()): string {
  if (!iso) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === now.toDateString() ? d.toLocaleTimeString() : d.toLocaleString();
}
