//! The Conversations panel's wire shapes (`conversation.*` of the owner `agent`), written from the contract in docs/conversations.md, and their typed call.

import { post } from "../api/client";

/** What a conversation may run on: Claude Code (over ACP or its own CLI), Codex, and Rho's own agent on the person's model. */
export type Backend = "claude" | "codex" | "claude-cli" | "rho";
export type ConversationBackend = Backend;
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
  /** Rho's own agent: the conversation's tokens per purpose (`turn`, `mcp_sampling`). */
  spend?: Spend[];
}

/** Tokens one purpose spent, as the provider reported them. */
export interface Spend {
  purpose: string;
  inputTokens: number;
  outputTokens: number;
  requests: number;
}

/** A tool call of Rho's own agent: where the tool comes from, how long it ran, its raw input and output. */
export interface Call {
  name: string;
  server: string | null;
  operation: string | null;
  durationMs: number;
  rawInput: string;
  rawOutput: string;
  isError: boolean;
  cancelled: boolean;
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
  /** Rho's own agent: the call's card. */
  call?: Call;
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
  /** `permission` (the Agent's), or Rho's own agent's `form` or `sampling` question from an MCP server
   *  (read with `conversation.question`, answered with `conversation.answer`). */
  kind?: "permission" | "form" | "sampling";
}

/** One field of a server's form, as the service read it from the requested schema. */
export interface FormField {
  name: string;
  title: string;
  /** The description and constraints in words. */
  help: string | null;
  kind: "text" | "number" | "integer" | "boolean" | "choice" | "multi";
  options: { value: string; label: string }[];
  required: boolean;
  default: unknown;
  /** A number's bounds, a text's length, or how many choices. */
  min: number | null;
  max: number | null;
}

/** An open question of Rho's own agent: a server's form, or its request to use the person's model. */
export interface Question {
  requestId: string;
  kind: "form" | "sampling";
  server: string;
  message: string | null;
  fields: FormField[];
  messages: number | null;
  maxTokens: number | null;
  model: string | null;
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
  /** Rho's own agent: tokens per purpose for this message. */
  spend?: Spend[];
  /** Rho's own agent: each retry of a failed model request, announced. */
  retries?: string[];
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
  "conversation.mcp": { req: P<{ conversationId: string }>; res: McpReport };
  "conversation.doctor": { req: P<{ conversationId: string }>; res: { rows: DoctorRow[] } };
  "conversation.prompts": { req: P<{ conversationId: string }>; res: { live: boolean; prompts: PromptCommand[] } };
  "conversation.resources": { req: P<{ conversationId: string; query?: string | null }>; res: { live: boolean; resources: ResourceRow[] } };
  "conversation.complete": {
    req: P<{ conversationId: string; server: string; prompt?: string | null; uriTemplate?: string | null; argument: string; value: string; others?: Record<string, string> | null }>;
    res: { values: string[] };
  };
  "conversation.image": { req: P<{ conversationId: string; stepId: string }>; res: { mimeType: string; data: string; sha256: string } };
  "conversation.question": { req: P<{ conversationId: string; requestId: string }>; res: { question: Question } };
  "conversation.answer": {
    req: P<{ conversationId: string; requestId: string; action: "accept" | "decline" | "cancel"; content?: Record<string, unknown> | null }>;
    res: { permission: Permission };
  };
}

/** A server prompt as a slash command. */
export interface PromptCommand {
  command: string;
  server: string;
  prompt: string;
  description: string | null;
  arguments: { name: string; required: boolean }[];
}

/** A server resource (or template) for the `@` palette, with the token a message carries to attach it. */
export interface ResourceRow {
  server: string;
  uri: string;
  name: string;
  template: boolean;
  token: string;
}

/** One configured MCP server as `/mcp` shows it. */
export interface McpServer {
  id: string;
  source: string;
  transport: string | null;
  enabled: boolean;
  status: string;
  era: string | null;
  error: string | null;
  tools: { name: string; exported: string | null; title: string | null }[];
  toolsNeedingRestart: string[];
  prompts: string[];
  resources: string[];
  lastPing: string | null;
}

/** `/mcp`: whether a live session answered, and every configured server. */
export interface McpReport {
  live: boolean;
  servers: McpServer[];
}

/** One row of `/doctor`. */
export interface DoctorRow {
  check: string;
  ok: boolean;
  detail: string;
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
  "conversation.mcp": ["projectId", "conversationId"],
  "conversation.doctor": ["projectId", "conversationId"],
  "conversation.prompts": ["projectId", "conversationId"],
  "conversation.resources": ["projectId", "conversationId"],
  "conversation.complete": ["projectId", "conversationId", "server", "argument", "value"],
  "conversation.image": ["projectId", "conversationId", "stepId"],
  "conversation.question": ["projectId", "conversationId", "requestId"],
  "conversation.answer": ["projectId", "conversationId", "requestId", "action"],
};

/** Calls one `conversation.*` operation. They are also in the app's `Ops` (tests/protocol.test.ts checks
 *  CONVERSATION_REQUIRED against protocol/operations). */
export function callConversation<K extends keyof ConversationOps>(op: K, req: ConversationOps[K]["req"]): Promise<ConversationOps[K]["res"]> {
  return post<ConversationOps[K]["res"]>(op, req);
}
