//! The Conversations panel's logic without React: one conversation's thread as a reducer (reads, streamed deltas, replies), and the draft's identity.

import type { Conversation, ConversationChanged, Decision, Message, Part, Permission } from "./ops";

/** One conversation as the panel shows it. */
export interface Thread {
  conversation: Conversation | null;
  /** Oldest first, as `conversation.read` pages them. */
  messages: Message[];
  /** The highest event `seq` applied as a delta (a delta of an older seq is dropped). */
  seq: number;
}

export const emptyThread = (): Thread => ({ conversation: null, messages: [], seq: 0 });

export type Action =
  /** Another conversation is shown (or none: a new one); the same one keeps its thread. */
  | { type: "select"; conversationId: string | null }
  /** A `conversation.read` page (or pages, concatenated) answered: every message in it replaces its older copy. */
  | { type: "read"; conversation: Conversation; messages: Message[] }
  /** One message from a `start`/`send`/`stop` reply. */
  | { type: "message"; message: Message; conversation?: Conversation }
  /** A `conversation.changed` event; only `text` carries its delta. */
  | { type: "event"; event: ConversationChanged }
  /** A `conversation.permission` reply: the permission's new state, on the message that asked. */
  | { type: "permission"; permission: Permission }
  /** A `conversation.decide` reply: the decision joins its message's list (earlier ones kept). */
  | { type: "decision"; decision: Decision };

const bySent = (a: Message, b: Message) => (a.sentAt < b.sentAt ? -1 : a.sentAt > b.sentAt ? 1 : 0);

/** The messages with `fresh` replacing the copies of the same id (a re-read replaces a message whole). */
export function mergeMessages(known: Message[], fresh: Message[]): Message[] {
  const byId = new Map(known.map((m) => [m.messageId, m]));
  for (const m of fresh) byId.set(m.messageId, m);
  return [...byId.values()].sort(bySent);
}

/** The parts with `delta` appended: to the last part when it is text, else as a new text part. */
export function appendText(parts: Part[], delta: string): Part[] {
  const last = parts[parts.length - 1];
  if (last && last.kind === "text") return [...parts.slice(0, -1), { kind: "text", text: last.text + delta }];
  return [...parts, { kind: "text", text: delta }];
}

/** Whether an event asks for a re-read of the conversation (everything but a text delta of a known message). */
export function needsRead(t: Thread, e: ConversationChanged): boolean {
  if (e.change !== "text" || typeof e.delta !== "string") return true;
  return !t.messages.some((m) => m.messageId === e.messageId);
}

export function reduce(t: Thread, a: Action): Thread {
  switch (a.type) {
    case "select":
      return a.conversationId !== null && t.conversation?.conversationId === a.conversationId ? t : emptyThread();
    case "read":
      return { ...t, conversation: a.conversation, messages: mergeMessages(t.messages, a.messages) };
    case "message":
      return { ...t, conversation: a.conversation ?? t.conversation, messages: mergeMessages(t.messages, [a.message]) };
    case "permission":
      return {
        ...t,
        messages: t.messages.map((m) =>
          m.permissions.some((p) => p.requestId === a.permission.requestId)
            ? { ...m, permissions: m.permissions.map((p) => (p.requestId === a.permission.requestId ? a.permission : p)) }
            : m,
        ),
      };
    case "decision": {
      const d = a.decision;
      return {
        ...t,
        messages: t.messages.map((m) => (m.messageId === d.messageId && !m.decisions.some((x) => x.decisionId === d.decisionId) ? { ...m, decisions: [...m.decisions, d] } : m)),
      };
    }
    case "event": {
      const e = a.event;
      if (e.change !== "text" || typeof e.delta !== "string") return t;
      // Events of one journal batch share its seq: only an older seq is a delta already applied.
      if (e.seq < t.seq) return t;
      const delta = e.delta;
      let hit = false;
      const messages = t.messages.map((m) => {
        if (m.messageId !== e.messageId || m.state !== "running") return m;
        hit = true;
        return { ...m, parts: appendText(m.parts, delta) };
      });
      if (!hit) return t;
      return { ...t, messages, seq: e.seq };
    }
  }
}

/** The permission the Agent waits on, if any (the newest pending one of a running message). */
export function pendingPermission(t: Thread): { message: Message; permission: Permission } | null {
  for (const m of [...t.messages].reverse()) {
    if (m.state !== "running") continue;
    const p = [...m.permissions].reverse().find((x) => x.state === "pending");
    if (p) return { message: m, permission: p };
  }
  return null;
}

/** The running message of the thread, if any (one at a time per conversation). */
export const runningMessage = (t: Thread): Message | null => t.messages.find((m) => m.state === "running") ?? null;

/** The text a message's Agent wrote (its text parts, not its thinking). */
export const answerText = (m: Message) =>
  m.parts
    .filter((p): p is { kind: "text"; text: string } => p.kind === "text")
    .map((p) => p.text)
    .join("");

/** The changeId of what is about to be sent: the same as the last attempt's for the same body (a retry after a lost
 *  reply must not send twice), a fresh one otherwise. */
export interface Draft {
  key: string;
  changeId: string;
}

export function draftFor(last: Draft | null, key: string, fresh: () => string): Draft {
  if (last && last.key === key) return last;
  return { key, changeId: fresh() };
}

/** The identity of a body: conversation (or the backend of a new one), text and contexts. */
export const bodyKey = (target: string, text: string, contexts: string[] = []) => JSON.stringify([target, text, contexts]);
