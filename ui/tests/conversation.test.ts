//! The Conversations panel's reducer: deltas in order, a re-read replacing a message, a permission pending then chosen, `unknown` in words, the draft's changeId.

import { describe, expect, it } from "vitest";
import { bodyKey, draftFor, emptyThread, needsRead, pendingPermission, reduce, runningMessage, type Thread } from "../src/conversation/model";
import type { Conversation, ConversationChanged, Message, Permission } from "../src/conversation/ops";
import { backendName, endSummary, messageState, permissionOutcome, stepStatus, UNKNOWN } from "../src/conversation/words";

const conv: Conversation = {
  conversationId: "c1",
  backend: "claude",
  title: "hello",
  startedAt: "2026-12-01T10:00:00Z",
  startedBy: "local",
  state: "running",
  messageCount: 1,
  lastAt: "2026-12-01T10:00:00Z",
  agentSessionId: "s",
  note: null,
  dropped: null,
};

function msg(id: string, over: Partial<Message> = {}): Message {
  return {
    messageId: id,
    changeId: `ch-${id}`,
    text: "hello",
    contexts: [],
    sentAt: `2026-12-01T10:00:0${id.slice(1)}Z`,
    sentBy: "local",
    state: "running",
    stopReason: null,
    error: null,
    endedAt: null,
    parts: [],
    usage: null,
    permissions: [],
    decisions: [],
    cut: null,
    ...over,
  };
}

const text = (messageId: string, seq: number, delta: string): ConversationChanged => ({ conversationId: "c1", messageId, seq, change: "text", delta });
const read = (t: Thread, messages: Message[]) => reduce(t, { type: "read", conversation: conv, messages });

describe("streamed deltas", () => {
  it("append in order to the running message's last text part; one batch's deltas share a seq, an older seq is dropped", () => {
    let t = read(emptyThread(), [msg("m1")]);
    t = reduce(t, { type: "event", event: text("m1", 1, "Hel") });
    t = reduce(t, { type: "event", event: text("m1", 2, "lo") });
    t = reduce(t, { type: "event", event: text("m1", 2, ", you") });
    t = reduce(t, { type: "event", event: text("m1", 1, "Hel") });
    expect(t.messages[0]?.parts).toEqual([{ kind: "text", text: "Hello, you" }]);
    expect(t.seq).toBe(2);
  });

  it("start a new text part after a step, and never touch an ended message", () => {
    const step = { stepId: "s1", title: "Run ls", category: "execute", input: "ls", startedAt: "x", status: "completed" as const, exitCode: 0, lastLines: "a", purpose: null };
    let t = read(emptyThread(), [msg("m1", { parts: [{ kind: "text", text: "Let me look." }, { kind: "step", step }] }), msg("m2", { state: "ended", stopReason: "end_turn" })]);
    t = reduce(t, { type: "event", event: text("m1", 5, "Done.") });
    t = reduce(t, { type: "event", event: text("m2", 6, "late") });
    expect(t.messages[0]?.parts.map((p) => p.kind)).toEqual(["text", "step", "text"]);
    expect(t.messages[0]?.parts[2]).toEqual({ kind: "text", text: "Done." });
    expect(t.messages[1]?.parts).toEqual([]);
  });

  it("ask for a re-read on every change but a known message's text", () => {
    const t = read(emptyThread(), [msg("m1")]);
    expect(needsRead(t, text("m1", 1, "x"))).toBe(false);
    expect(needsRead(t, text("m9", 1, "x"))).toBe(true);
    for (const change of ["started", "step", "permission", "ended", "decision", "state"] as const) {
      expect(needsRead(t, { conversationId: "c1", messageId: "m1", seq: 2, change })).toBe(true);
    }
  });
});

describe("a re-read", () => {
  it("replaces a message whole (streamed text included) and keeps the others, oldest first", () => {
    let t = read(emptyThread(), [msg("m1", { state: "ended", stopReason: "end_turn", parts: [{ kind: "text", text: "one" }] }), msg("m2")]);
    t = reduce(t, { type: "event", event: text("m2", 1, "partial") });
    t = read(t, [msg("m2", { state: "ended", stopReason: "end_turn", parts: [{ kind: "text", text: "partial and whole" }] })]);
    expect(t.messages.map((m) => m.messageId)).toEqual(["m1", "m2"]);
    expect(t.messages[1]?.parts).toEqual([{ kind: "text", text: "partial and whole" }]);
    expect(runningMessage(t)).toBeNull();
    t = reduce(t, { type: "message", message: msg("m3") });
    expect(t.messages.map((m) => m.messageId)).toEqual(["m1", "m2", "m3"]);
    expect(runningMessage(t)?.messageId).toBe("m3");
  });
});

describe("switching and deciding", () => {
  it("keeps the thread when the same conversation is selected again and empties it for another", () => {
    const t = read(emptyThread(), [msg("m1")]);
    expect(reduce(t, { type: "select", conversationId: "c1" })).toBe(t);
    expect(reduce(t, { type: "select", conversationId: "c2" }).messages).toEqual([]);
    expect(reduce(t, { type: "select", conversationId: null }).conversation).toBeNull();
  });

  it("adds a decision to its message once, earlier decisions kept", () => {
    const d = (id: string, supersedes: string | null) => ({ decisionId: id, messageId: "m1", decision: "accepted" as const, note: null, at: "x", by: "local", supersedes, resources: [] });
    let t = read(emptyThread(), [msg("m1", { state: "ended", stopReason: "end_turn" })]);
    t = reduce(t, { type: "decision", decision: d("d1", null) });
    t = reduce(t, { type: "decision", decision: d("d2", "d1") });
    t = reduce(t, { type: "decision", decision: d("d2", "d1") });
    expect(t.messages[0]?.decisions.map((x) => x.decisionId)).toEqual(["d1", "d2"]);
  });
});

describe("permissions", () => {
  const pending: Permission = {
    requestId: "r1",
    stepId: "s1",
    title: "Run exit 3",
    options: [
      { optionId: "allow", name: "Allow", kind: "allow_once" },
      { optionId: "always", name: "Always allow", kind: "allow_always" },
      { optionId: "reject", name: "Reject", kind: "reject_once" },
    ],
    state: "pending",
    chosen: null,
    chosenBy: null,
    askedAt: "x",
  };

  it("go from pending to chosen by the reply, and the card is no longer asked for", () => {
    let t = read(emptyThread(), [msg("m1", { permissions: [pending] })]);
    expect(pendingPermission(t)?.permission.requestId).toBe("r1");
    t = reduce(t, { type: "permission", permission: { ...pending, state: "chosen", chosen: "allow", chosenBy: "local" } });
    expect(pendingPermission(t)).toBeNull();
    const p = t.messages[0]?.permissions[0];
    expect(p?.state).toBe("chosen");
    expect(permissionOutcome(p as Permission)).toBe("Allow, chosen by the local browser");
  });

  it("of an ended message are not pending to the panel", () => {
    const t = read(emptyThread(), [msg("m1", { state: "ended", stopReason: "cancelled", permissions: [pending] })]);
    expect(pendingPermission(t)).toBeNull();
    expect(permissionOutcome({ ...pending, state: "cancelled" })).toMatch(/^cancelled/);
  });
});

describe("in words", () => {
  it("an unknown message says nothing was re-sent", () => {
    const m = msg("m1", { state: "unknown" });
    expect(messageState(m)).toBe(UNKNOWN);
    expect(UNKNOWN).toBe("Rho stopped while this message ran; its outcome is unknown, nothing was re-sent.");
    expect(endSummary(m, "codex")).toBe(`Codex: ${UNKNOWN}`);
  });

  it("an ended message's summary counts words and steps, not tokens", () => {
    const step = { stepId: "s1", title: "t", category: "execute", input: "exit 3", startedAt: "x", status: "failed" as const, exitCode: 3, lastLines: null, purpose: null };
    const m = msg("m1", { state: "ended", stopReason: "end_turn", parts: [{ kind: "thought", text: "hmm hmm" }, { kind: "text", text: "It exited " }, { kind: "step", step }, { kind: "text", text: "with 3." }] });
    expect(endSummary(m, "claude")).toBe("Claude Code finished: 4 words, 1 step.");
    expect(stepStatus(step)).toBe("failed, exit code 3");
    expect(messageState(msg("m2", { state: "ended", stopReason: "cancelled" }))).toBe("stopped");
  });
});

describe("the draft's changeId", () => {
  it("is kept for the same body (a retry after a lost reply) and fresh for another", () => {
    let n = 0;
    const fresh = () => `id-${++n}`;
    const a = draftFor(null, bodyKey("new:claude", "hi"), fresh);
    expect(draftFor(a, bodyKey("new:claude", "hi"), fresh).changeId).toBe("id-1");
    expect(draftFor(a, bodyKey("new:codex", "hi"), fresh).changeId).toBe("id-2");
    expect(draftFor(a, bodyKey("new:claude", "hi!"), fresh).changeId).toBe("id-3");
  });
});

describe("what the service added for issue 17 in words", () => {
  it("names Claude Code's own CLI and a message stopped at a limit", () => {
    expect(backendName("claude-cli")).toBe("Claude Code (CLI)");
    const capped = msg("m1", {
      state: "ended",
      stopReason: "max_turn_requests",
      error: { code: "limit", message: "stopped at conversations.maxAgentTurns (1): the message reached the limit set in --limits" },
    });
    expect(messageState(capped)).toBe("ended: the step limit for one message was reached: stopped at conversations.maxAgentTurns (1): the message reached the limit set in --limits");
  });
});
