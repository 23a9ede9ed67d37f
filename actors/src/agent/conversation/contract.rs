//! Wire contracts of `conversation.*` (docs/conversations.md): requests, the views of a
//! conversation, message, step and permission, and the operations' declarations.

use super::surfaces_contract::{
    AnswerRequest, CompleteReply, CompleteRequest, DoctorReply, ImageReply, ImageRequest, McpReply,
    PaletteRequest, PromptsReply, QuestionReply, QuestionRequest, ResourcesReply, SurfaceRequest,
};
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
    /// `claude` (the default unless `--agent-backend` says otherwise), `codex`, `claude-cli`
    /// or `rho` (Rho's own agent).
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
    /// For a conversation that needs a choice (its Agent session could not be continued):
    /// continue it in a fresh Agent session given a summary of its earlier messages.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fresh_session: Option<bool>,
}

/// `conversation.decide`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DecideRequest {
    pub project_id: String,
    pub conversation_id: String,
    pub message_id: String,
    /// `accepted` or `needs-changes`.
    pub decision: String,
    /// Required with `needs-changes`: what needs to change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    pub change_id: String,
    /// The message's newest decision, which this one supersedes (required once it has one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supersedes: Option<String>,
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
    /// `claude`, `codex`, `claude-cli` or `rho`.
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
    /// Messages that went to keep a limit, counted, and the limit's key.
    pub dropped: Option<DroppedView>,
    /// Rho's own agent: the conversation's tokens per purpose.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spend: Vec<SpendView>,
}

/// What went to keep a limit: how many, and the limit's `--limits` key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DroppedView {
    pub count: u64,
    pub limit: String,
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
    /// Rho's own agent: the call's card (server or operation, duration, raw input and output).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Box<CallView>>,
}

/// A tool call of Rho's own agent, as its card shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CallView {
    /// The exported tool name the model called.
    pub name: String,
    /// The MCP server, for an MCP tool.
    pub server: Option<String>,
    /// The project operation, for one of Rho's project tools.
    pub operation: Option<String>,
    pub duration_ms: u64,
    /// The raw input (JSON text, bounded).
    pub raw_input: String,
    /// What the model read back (bounded; an image as its descriptor).
    pub raw_output: String,
    pub is_error: bool,
    pub cancelled: bool,
}

/// Tokens spent by one purpose (`turn`, `mcp_sampling`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SpendView {
    pub purpose: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub requests: u64,
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
    /// `permission` (the Agent's), or Rho's own agent's `form` (a server's
    /// `elicitation/create`) or `sampling` (a server asks to use the person's model): these two
    /// are read with `conversation.question` and answered with `conversation.answer`.
    pub kind: String,
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

/// What limits dropped, counted, and the `--limits` key of every bound that cut something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CutView {
    pub text_bytes: u64,
    pub steps: u64,
    pub outputs: u64,
    pub limits: Vec<String>,
}

/// An error a message ended with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ErrorView {
    pub code: String,
    pub message: String,
}

/// A resource version: `{id, version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRefView {
    pub id: String,
    pub version: u64,
}

/// One file version a message kept: its path and digest, and its version in Files' immutable
/// store (`null` when Files is not selected).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileVersionView {
    pub path: String,
    /// `sha256:<hex>` of the bytes kept.
    pub digest: String,
    pub bytes: u64,
    pub resource: Option<ResourceRefView>,
}

/// A file a message did not keep, and why (a limit's `--limits` key, or what failed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OmittedView {
    pub path: String,
    pub reason: String,
}

/// A decision on a finished message (`conversation.decide`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionView {
    pub decision_id: String,
    pub message_id: String,
    /// `accepted` or `needs-changes`.
    pub decision: String,
    pub note: Option<String>,
    pub at: String,
    pub by: String,
    pub supersedes: Option<String>,
    /// The exact file versions the message kept (a file changed later is not covered).
    pub resources: Vec<FileVersionView>,
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
    /// The file versions the message kept when it ended: the files its steps named and those
    /// that changed while it ran.
    pub kept: Vec<FileVersionView>,
    /// Files it did not keep, and why.
    pub kept_omitted: Vec<OmittedView>,
    /// Rho's own agent: tokens spent per purpose (its usage ledger for this message).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub spend: Vec<SpendView>,
    /// Rho's own agent: each retry of a failed model request, announced.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub retries: Vec<String>,
}

/// `conversation.decide`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecideReply {
    pub decision: DecisionView,
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
    /// Conversations that went to keep a limit (not listed), counted, and the limit's key.
    pub removed: Option<DroppedView>,
}

/// The browser of this machine, or a paired tab whose scope includes the project.
pub const BROWSER: &[CallerKind] = &[CallerKind::Local, CallerKind::Paired];
/// The browser of this machine only.
pub const LOCAL: &[CallerKind] = &[CallerKind::Local];

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
        version: "0.2.0",
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
        schema::<StartRequest>, reply::<StartReply>, &["invalid", "not_found", "conflict", "limit", "unavailable", "expired"]),
    op("conversation.send", Effect::Write,
        "The browser only: the next message of a conversation (conflict while one runs; a conversation whose Agent session could not be continued needs freshSession true, or a new conversation); the same changeId and body answers the original and sends nothing.",
        schema::<SendRequest>, reply::<MessageReply>, &["invalid", "not_found", "conflict", "limit", "unavailable", "expired"]),
    op("conversation.stop", Effect::Write,
        "The browser only: ACP cancel of the running message; answers once the prompt's own response confirmed it (stopReason cancelled), or after the bound with stopping true.",
        schema::<StopRequest>, reply::<MessageReply>, &["invalid", "not_found", "conflict"]).retained(),
    op("conversation.permission", Effect::Write,
        "The browser only: answer the Agent's pending permission request with one of the options it offered.",
        schema::<PermissionAnswer>, reply::<PermissionReply>, &["invalid", "not_found", "conflict"]).retained(),
    op("conversation.read", Effect::Read,
        "The browser only: a conversation and a page of its whole messages, oldest first (limit default 20, at most 100).",
        schema::<ReadRequest>, reply::<ReadReply>, &["invalid", "not_found"]).retained(),
    OperationSpec {
        callers: LOCAL,
        ..op("conversation.decide", Effect::Write,
        "The local browser only: accepted, or needs-changes with a note, on one finished message; the decision holds the exact file versions that message kept. A later decision names the one it supersedes; every earlier one is kept. The same changeId and body answers the original.",
        schema::<DecideRequest>, reply::<DecideReply>, &["invalid", "not_found", "conflict", "expired"])
    },
    op("conversation.list", Effect::Read,
        "The browser only: the project's conversations, newest first.",
        schema::<ListRequest>, reply::<ListReply>, &["invalid", "not_found"]).retained(),
    op("conversation.mcp", Effect::Read,
        "The browser only (`/mcp`): the MCP servers of the selected config as the conversation's session of Rho's own agent runs them (status, era, errors, exported tools, tools needing a restart, prompts, resources, last ping); the configured entries when none runs, and for a Claude Code or Codex conversation the entries as not_loaded.",
        schema::<SurfaceRequest>, reply::<McpReply>, &["invalid", "not_found", "unavailable"]),
    op("conversation.doctor", Effect::Read,
        "The browser only (`/doctor`): the model provider asked for its model list now, the model, the MCP servers' health, and the R and Python the service found.",
        schema::<SurfaceRequest>, reply::<DoctorReply>, &["invalid", "not_found"]),
    op("conversation.question", Effect::Read,
        "The browser only: the details of an open question of Rho's own agent: a server's form (its fields from the requested schema: types, choices, defaults, bounds, help) or a sampling request (the server, how many messages, the token ceiling, the model).",
        schema::<QuestionRequest>, reply::<QuestionReply>, &["invalid", "not_found", "conflict"]),
    op("conversation.answer", Effect::Write,
        "The browser only: the person's answer to an open form or sampling question of Rho's own agent: accept (a form's content, checked against its schema first: types, required fields, choices, minimum and maximum; a wrong field is named and the form stays open), decline, or cancel (which also ends the turn).",
        schema::<AnswerRequest>, reply::<PermissionReply>, &["invalid", "not_found", "conflict"]).retained(),
    op("conversation.prompts", Effect::Read,
        "The browser only: the prompts of the MCP servers the conversation's session of Rho's own agent runs, as /mcp:<server>:<prompt> commands with their arguments (live false and none when no session runs).",
        schema::<PaletteRequest>, reply::<PromptsReply>, &["invalid", "not_found"]),
    op("conversation.resources", Effect::Read,
        "The browser only (the @ palette): the resources, then the resource templates, of the MCP servers the conversation's session of Rho's own agent runs, matched on their URI; each with the @mcp:<server>:<uri> token a message carries to attach it.",
        schema::<PaletteRequest>, reply::<ResourcesReply>, &["invalid", "not_found"]),
    op("conversation.complete", Effect::Read,
        "The browser only: a server's suggestions (completion/complete) for the prompt argument or resource-template placeholder being typed; empty when the server offers none or does not answer in time.",
        schema::<CompleteRequest>, reply::<CompleteReply>, &["invalid", "not_found"]),
    op("conversation.image", Effect::Read,
        "The browser only: the image a call card of Rho's own agent shows (the first image of the call's result that fit the 4 MiB budget), while the conversation's session holds it (8 MiB of images per session, the oldest let go first); not_found otherwise.",
        schema::<ImageRequest>, reply::<ImageReply>, &["invalid", "not_found"]),
];
