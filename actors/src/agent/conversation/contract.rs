//! Wire contracts of `conversation.*` (docs/conversations.md): requests, the views of a
//! conversation, message, step and permission, and the operations' declarations.

use crate::contract::{reply, schema, CallerKind, Effect, Needs, OperationSpec};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `conversation.start`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StartRequest {
    pub project_id: String,
    pub change_id: String,
    pub text: String,
    /// `claude` (the default unless `--agent-backend` says otherwise) or `codex`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<String>,
    /// The Agent's session mode to set (`default`, `acceptEdits`, `auto`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<String>>,
}

/// `conversation.send`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SendRequest {
    pub project_id: String,
    pub conversation_id: String,
    pub change_id: String,
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contexts: Option<Vec<String>>,
}

/// `conversation.stop`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopRequest {
    pub project_id: String,
    pub conversation_id: String,
}

/// `conversation.read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    pub conversation_id: String,
    /// The `nextCursor` of the previous page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// Messages per page: default 20, at most 100.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
}

/// `conversation.permission`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PermissionAnswer {
    pub project_id: String,
    pub conversation_id: String,
    pub request_id: String,
    pub option_id: String,
}

/// `conversation.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
}

/// A conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConversationView {
    pub conversation_id: String,
    /// `claude` or `codex`.
    pub backend: String,
    pub title: String,
    pub started_at: String,
    pub started_by: String,
    /// `idle`, `running`, `waiting` (a permission is pending) or `needs-choice`.
    pub state: String,
    pub message_count: u64,
    pub last_at: String,
    pub agent_session_id: Option<String>,
    pub note: Option<String>,
}

/// A tool step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StepView {
    pub step_id: String,
    pub title: String,
    /// The ACP kind: read, edit, delete, move, search, execute, think, fetch, other.
    pub category: String,
    pub input: Option<String>,
    pub started_at: String,
    pub status: String,
    pub exit_code: Option<i32>,
    pub last_lines: Option<String>,
    pub purpose: Option<String>,
}

/// One part of an answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PartView {
    Text { text: String },
    Step { step: StepView },
}

/// An option the Agent offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OptionView {
    pub option_id: String,
    pub name: String,
    /// allow_once, allow_always, reject_once or reject_always.
    pub kind: String,
}

/// A permission request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionView {
    pub request_id: String,
    pub step_id: Option<String>,
    pub title: String,
    pub options: Vec<OptionView>,
    /// `pending`, `chosen` or `cancelled`.
    pub state: String,
    pub chosen: Option<String>,
    pub chosen_by: Option<String>,
    pub asked_at: String,
}

/// Token usage as the Agent reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct UsageView {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
}

/// What a limit dropped, counted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CutView {
    pub text_bytes: u64,
    pub steps: u64,
    pub outputs: u64,
}

/// An error a message ended with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorView {
    pub code: String,
    pub message: String,
}

/// A decision on a message (`conversation.decide`; none exist before it is implemented).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub decision_id: String,
    pub message_id: String,
    pub decision: String,
}

/// A message and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageView {
    pub message_id: String,
    pub change_id: String,
    pub text: String,
    pub contexts: Vec<String>,
    pub sent_at: String,
    pub sent_by: String,
    /// `running`, `ended` or `unknown`.
    pub state: String,
    pub stopping: bool,
    pub stop_reason: Option<String>,
    pub error: Option<ErrorView>,
    pub ended_at: Option<String>,
    pub parts: Vec<PartView>,
    pub usage: Option<UsageView>,
    pub permissions: Vec<PermissionView>,
    pub decisions: Vec<DecisionView>,
    pub cut: Option<CutView>,
}

/// `conversation.start`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StartReply {
    pub conversation: ConversationView,
    pub message: MessageView,
}

/// `conversation.send` and `conversation.stop`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct MessageReply {
    pub message: MessageView,
}

/// `conversation.read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadReply {
    pub conversation: ConversationView,
    pub messages: Vec<MessageView>,
    pub next_cursor: Option<String>,
}

/// `conversation.permission`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionReply {
    pub permission: PermissionView,
}

/// `conversation.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub conversations: Vec<ConversationView>,
}

/// The browser of this machine, or a paired tab whose scope includes the project.
pub const BROWSER: &[CallerKind] = &[CallerKind::Local, CallerKind::Paired];

const fn op(
    name: &'static str,
    effect: Effect,
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.1.0",
        owner: Some(Owner::Agent),
        needs: Needs::Owner,
        effect,
        callers: BROWSER,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &["conversation.changed"],
    }
}

pub const OPERATIONS: &[OperationSpec] = &[
    op("conversation.start", Effect::Write,
        "The browser only: a new conversation with the person's Agent (claude: Claude Code through claude-agent-acp; codex: Codex through codex-acp), its first message journaled before the Agent sees it; answers once it is handed over. The same changeId and body answers the original and sends nothing.",
        schema::<StartRequest>, reply::<StartReply>, &["invalid", "not_found", "conflict", "unavailable"]),
    op("conversation.send", Effect::Write,
        "The browser only: the next message of a conversation (conflict while one runs); the same changeId and body answers the original and sends nothing.",
        schema::<SendRequest>, reply::<MessageReply>, &["invalid", "not_found", "conflict", "unavailable"]),
    op("conversation.stop", Effect::Write,
        "The browser only: ACP cancel of the running message; answers once the prompt's own response confirmed it (stopReason cancelled), or after the bound with stopping true.",
        schema::<StopRequest>, reply::<MessageReply>, &["invalid", "not_found", "conflict"]).retained(),
    op("conversation.permission", Effect::Write,
        "The browser only: answer the Agent's pending permission request with one of the options it offered.",
        schema::<PermissionAnswer>, reply::<PermissionReply>, &["invalid", "not_found", "conflict"]).retained(),
    op("conversation.read", Effect::Read,
        "The browser only: a conversation and a page of its whole messages, oldest first (limit default 20, at most 100).",
        schema::<ReadRequest>, reply::<ReadReply>, &["invalid", "not_found"]).retained(),
    op("conversation.list", Effect::Read,
        "The browser only: the project's conversations, newest first.",
        schema::<ListRequest>, reply::<ListReply>, &["invalid", "not_found"]).retained(),
];
