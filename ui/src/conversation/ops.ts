//! The Conversations panel's wire shapes (`conversation.*` of the owner `agent`), written from the contract in docs/conversations.md, and their typed call.

import { post } from "../api/client";

export type Backend = "claude" | "codex";
/** What a conversation may run on: the two the panel offers, and Claude Code's own CLI (`claude-cli`, a service default). */
export type ConversationBackend = Backend | "claude-cli";
export type ConversationState = "idle" | "running" | "waiting" | "needs-choice";
export type MessageState = "running" | "ended" | "unknown";
export type StopReason = "end_turn" | "cancelled" | "max_tokens" | "max_turn_requests" | "refusal" | "error";
export type StepCategory = "read" | "edit" | "delete" | "move" | "search" | "execute" | "think" | "fetch" | "other";
export type StepStatus = "pending" | "in_progress" | "completed" | "failed";
export type OptionKind = "allow_once" | "allow_always" | "reject_once" | "reject_always";
export type DecisionKind = "accepted" | "needs-changes";

export interface Conversation {
  conversationId: string;
  backend: ConversationBackend;
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
  /** Messages that went to keep a limit, and the limit's key. */
  dropped: { count: number; limit: string } | null;
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

/** A file version a message kept: its digest and, when Files is selected, its version in the immutable store. */
export interface FileVersion {
  path: string;
  digest: string;
  bytes: number;
  resource: { id: string; version: number } | null;
}

export interface Decision {
  decisionId: string;
  messageId: string;
  decision: DecisionKind;
  note: string | null;
  at: string;
  by: string;
  supersedes: string | null;
  resources: FileVersion[];
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
  /** What limits dropped, counted, and the `--limits` key of each bound that cut something. */
  cut: { textBytes?: number; steps?: number; outputs?: number; limits?: string[] } | null;
  /** The file versions it kept when it ended, and the files left out with why. */
  kept?: FileVersion[];
  keptOmitted?: { path: string; reason: string }[];
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
  "conversation.send": {
    req: P<{ conversationId: string; changeId: string; text: string; contexts?: string[] | null; freshSession?: boolean | null }>;
    res: { message: Message };
  };
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
  "conversation.list": { req: P<object>; res: { conversations: Conversation[]; removed: { count: number; limit: string } | null } };
}

/** The request fields each operation requires, as protocol/operations publishes them. */
export const CONVERSATION_REQUIRED: { [K in keyof ConversationOps]: string[] } = {
  "conversation.start": ["projectId", "changeId", "text"],
  "conversation.send": ["projectId", "conversationId", "changeId", "text"],
  "conversation.stop": ["projectId", "conversationId"],
  "conversation.read": ["projectId", "conversationId"],
  "conversation.permission": ["projectId", "conversationId", "requestId", "optionId"],
  "conversation.decide": ["projectId", "conversationId", "messageId", "decision", "changeId"],
  "conversation.list": ["projectId"],
};

/** Calls one `conversation.*` operation. They are also in the app's `Ops` (tests/protocol.test.ts checks
 *  CONVERSATION_REQUIRED against protocol/operations). */
export function callConversation<K extends keyof ConversationOps>(op: K, req: ConversationOps[K]["req"]): Promise<ConversationOps[K]["res"]> {
  return post<ConversationOps[K]["res"]>(op, req);
}
