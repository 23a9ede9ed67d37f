//! The Conversations panel's wire shapes (`conversation.*` of the owner `agent`), written from the contract in docs/conversations.md, and their typed call.

import { post } from "../api/client";

export type Backend = "claude" | "codex";
export type ConversationState = "idle" | "running" | "waiting" | "needs-choice";
export type MessageState = "running" | "ended" | "unknown";
export type StopReason = "end_turn" | "cancelled" | "max_tokens" | "max_turn_requests" | "refusal" | "error";
export type StepCategory = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";
export type StepStatus = "pending" | "in_progress" | "completed" | "failed";
export type OptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";
export type DecisionKind = "accepted" | "needs-changes";

export interface Conversation {
  conversationId: string;
  backend: Backend;
  /** The first line of the first message, at most 80 characters. */
  title: string;
  startedAt: string;
  startedBy: string;
  state: ConversationState;
  messageCount: number;
  lastAt: string;
  agentSessionId: string | null;
  /** Why the conversation is as it is (e.g. why a choice is needed). */
  note: string | null;
}

export interface Step {
  stepId: string;
  title: string;
  category: StepCategory | string;
  /** The command, path, pattern or query (at most 512 characters). */
  input: string | null;
  startedAt: string;
  status: StepStatus;
  exitCode: number | null;
  /** The last 20 lines a command printed (at most 2 KiB). */
  lastLines: string | null;
  purpose: string | null;
}

export type Part = { kind: "text"; text: string } | { kind: "thought"; text: string } | { kind: "step"; step: Step };

export interface PermissionOption {
  optionId: string;
  name: string;
  kind: OptionKind | string;
}

export interface Permission {
  requestId: string;
  stepId: string | null;
  title: string;
  options: PermissionOption[];
  state: "pending" | "chosen" | "cancelled";
  chosen: string | null;
  chosenBy: string | null;
  askedAt: string;
}

export interface Decision {
  decisionId: string;
  messageId: string;
  decision: DecisionKind;
  note: string | null;
  at: string;
  by: string;
  supersedes: string | null;
  resources: { path: string; digest: string }[];
}

export interface Message {
  messageId: string;
  changeId: string;
  /** The person's prompt. */
  text: string;
  contexts: string[];
  sentAt: string;
  sentBy: string;
  state: MessageState;
  stopReason: StopReason | null;
  error: { code: string; message: string } | null;
  endedAt: string | null;
  parts: Part[];
  usage: Record<string, number> | null;
  permissions: Permission[];
  decisions: Decision[];
  cut: { textBytes?: number; steps?: number; outputs?: number } | null;
  /** Set by `conversation.stop` when its bound passed before the prompt's response confirmed it. */
  stopping?: boolean;
}

/** `conversation.changed`, as the project's event stream carries it. */
export interface ConversationChanged {
  projectId?: string;
  conversationId: string;
  messageId: string;
  seq: number;
  change: "started" | "text" | "step" | "permission" | "ended" | "decision" | "state";
  delta?: string;
}

type P<T> = { projectId: string } & T;

export interface ConversationOps {
  "conversation.start": {
    req: P<{ changeId: string; text: string; backend?: Backend | null; mode?: string | null; contexts?: string[] | null }>;
    res: { conversation: Conversation; message: Message };
  };
  "conversation.send": { req: P<{ conversationId: string; changeId: string; text: string; contexts?: string[] | null }>; res: { message: Message } };
  "conversation.stop": { req: P<{ conversationId: string }>; res: { message: Message } };
  "conversation.read": {
    req: P<{ conversationId: string; cursor?: string | null; limit?: number | null }>;
    res: { conversation: Conversation; messages: Message[]; nextCursor: string | null };
  };
  "conversation.permission": { req: P<{ conversationId: string; requestId: string; optionId: string }>; res: { permission: Permission } };
  "conversation.decide": {
    req: P<{ conversationId: string; messageId: string; decision: DecisionKind; note?: string | null; changeId: string; supersedes?: string | null }>;
    res: { decision: Decision };
  };
  "conversation.list": { req: P<object>; res: { conversations: Conversation[] } };
}

/** The published ones (`conversation.decide` is not served yet; `callConversation` reaches it untyped by the protocol). */
export const CONVERSATION_REQUIRED: { [K in Exclude<keyof ConversationOps, "conversation.decide">]: string[] } = {
  "conversation.start": ["projectId", "changeId", "text"],
  "conversation.send": ["projectId", "conversationId", "changeId", "text"],
  "conversation.stop": ["projectId", "conversationId"],
  "conversation.read": ["projectId", "conversationId"],
  "conversation.permission": ["projectId", "conversationId", "requestId", "optionId"],
  "conversation.list": ["projectId"],
};

/** Calls one `conversation.*` operation. The published ones are also in the app's `Ops` (tests/protocol.test.ts
 *  checks CONVERSATION_REQUIRED against protocol/operations); `conversation.decide` joins them once it is served. */
export function callConversation<K extends keyof ConversationOps>(op: K, req: ConversationOps[K]["req"]): Promise<ConversationOps[K]["res"]> {
  return post<ConversationOps[K]["res"]>(op, req);
}
