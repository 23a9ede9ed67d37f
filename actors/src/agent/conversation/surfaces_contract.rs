//! The wire shapes of `conversation.mcp` and `conversation.doctor` (`/mcp` and `/doctor` in the
//! panel), and the view of one MCP server report (`rho mcp list`'s stable report).

use rho_mcp::report::ServerReport;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `conversation.mcp` and `conversation.doctor`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SurfaceRequest {
    pub project_id: String,
    pub conversation_id: String,
}

/// One tool a server offers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    /// The server's own name.
    pub name: String,
    /// The name the model sees (null when allow/deny hides it).
    pub exported: Option<String>,
    pub title: Option<String>,
}

/// One configured MCP server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpServerView {
    pub id: String,
    /// `config` or `plugin:<name>`.
    pub source: String,
    /// `stdio` or `streamable_http`.
    pub transport: Option<String>,
    pub enabled: bool,
    /// `configured` (not started), `disabled`, `malformed`, `connected`, `failed`, or
    /// `not_loaded` (a Claude Code or Codex conversation starts none).
    pub status: String,
    /// The protocol era once connected.
    pub era: Option<String>,
    pub error: Option<String>,
    pub tools: Vec<McpToolView>,
    /// Tools that appeared after the session started: offered after a restart.
    pub tools_needing_restart: Vec<String>,
    /// The slash commands of its prompts (`/mcp:<server>:<prompt>`).
    pub prompts: Vec<String>,
    /// Its resources' URIs and templates.
    pub resources: Vec<String>,
    pub last_ping: Option<String>,
}

/// `conversation.mcp`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpReply {
    /// Whether a live session of Rho's own agent answered (else the configured entries).
    pub live: bool,
    pub servers: Vec<McpServerView>,
}

/// One row of `/doctor`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorRow {
    /// `provider`, `mcp`, `r` or `python`.
    pub check: String,
    pub ok: bool,
    /// What was found, in words (the model, counts, a path).
    pub detail: String,
}

/// `conversation.doctor`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DoctorReply {
    pub rows: Vec<DoctorRow>,
}

/// A report as the panel reads it.
pub fn server(r: &ServerReport) -> McpServerView {
    let status = serde_json::to_value(r.status)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default();
    McpServerView {
        id: r.id.clone(),
        source: r.source.clone(),
        transport: r.transport.clone(),
        enabled: r.enabled,
        status,
        era: r.era.clone(),
        error: r.error.clone(),
        tools: r
            .tools
            .iter()
            .map(|t| McpToolView {
                name: t.name.clone(),
                exported: t.exported.clone(),
                title: t.title.clone(),
            })
            .collect(),
        tools_needing_restart: r.tools_needing_restart.clone(),
        prompts: r.prompts.iter().map(|p| p.command.clone()).collect(),
        resources: r.resources.iter().map(|x| x.uri.clone()).collect(),
        last_ping: r.last_ping.clone(),
    }
}

/// `conversation.question`: the details of a form or sampling question that is open.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct QuestionRequest {
    pub project_id: String,
    pub conversation_id: String,
    pub request_id: String,
}

/// `conversation.answer`: the person's answer to a form or a sampling question.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerRequest {
    pub project_id: String,
    pub conversation_id: String,
    pub request_id: String,
    /// `accept` (a form: submit `content`; sampling: allow), `decline` (the server carries on
    /// without it; sampling: refuse) or `cancel` (also ends the turn).
    pub action: String,
    /// A form's answer with `accept`: an object keyed by field, each value of the field's JSON
    /// type (checked: types, required fields, choices, minimum and maximum).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<serde_json::Value>,
}

/// One choice of a field.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChoiceView {
    pub value: String,
    pub label: String,
}

/// One field of a form, as the panel renders it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FormFieldView {
    pub name: String,
    pub title: String,
    /// The description and constraints in words.
    pub help: Option<String>,
    /// `text`, `number`, `integer`, `boolean`, `choice` or `multi` (several choices).
    pub kind: String,
    pub options: Vec<ChoiceView>,
    pub required: bool,
    /// The schema's default, pre-filled.
    pub default: Option<serde_json::Value>,
    /// The bounds checked on answer: a number's minimum and maximum, a text's length, or how
    /// many choices.
    pub min: Option<f64>,
    pub max: Option<f64>,
}

/// An open question of Rho's own agent: a form (`elicitation/create`) or a sampling request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionView {
    pub request_id: String,
    /// `form` or `sampling`.
    pub kind: String,
    /// The asking server.
    pub server: String,
    /// A form's message.
    pub message: Option<String>,
    pub fields: Vec<FormFieldView>,
    /// Sampling: how many messages the server sends, its token ceiling (shown, not
    /// enforced) and the model that would answer.
    pub messages: Option<u64>,
    pub max_tokens: Option<u32>,
    pub model: Option<String>,
}

/// `conversation.question`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct QuestionReply {
    pub question: QuestionView,
}

/// `conversation.prompts` and `conversation.resources`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PaletteRequest {
    pub project_id: String,
    pub conversation_id: String,
    /// `conversation.resources`: matched against each URI (case-insensitive); all when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub query: Option<String>,
}

/// One prompt argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgView {
    pub name: String,
    pub required: bool,
}

/// One server prompt as a slash command.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptView {
    /// `/mcp:<server>:<prompt>`.
    pub command: String,
    pub server: String,
    pub prompt: String,
    pub description: Option<String>,
    pub arguments: Vec<PromptArgView>,
}

/// `conversation.prompts`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptsReply {
    /// Whether a live session answered (else nothing is listed: prompts come from servers that run).
    pub live: bool,
    pub prompts: Vec<PromptView>,
}

/// One server resource or template for the `@` palette.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    pub server: String,
    /// The URI, or the RFC 6570 template.
    pub uri: String,
    /// The server's name for it.
    pub name: String,
    /// A template is written into the message to be filled in; a resource is attached.
    pub template: bool,
    /// What the message carries to attach it: `@mcp:<server>:<uri>`.
    pub token: String,
}

/// `conversation.resources`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesReply {
    pub live: bool,
    /// Resources first, then templates (at most 50).
    pub resources: Vec<ResourceView>,
}

/// `conversation.complete`: suggestions for a prompt argument or a template placeholder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompleteRequest {
    pub project_id: String,
    pub conversation_id: String,
    pub server: String,
    /// The prompt whose argument is typed (or `uriTemplate`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The resource template whose placeholder is typed (or `prompt`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri_template: Option<String>,
    pub argument: String,
    pub value: String,
    /// The other arguments already typed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others: Option<std::collections::BTreeMap<String, String>>,
}

/// `conversation.complete`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompleteReply {
    /// What the server suggested (empty when it offers none, fails or is late).
    pub values: Vec<String>,
}

/// `conversation.image`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImageRequest {
    pub project_id: String,
    pub conversation_id: String,
    /// The call card's step.
    pub step_id: String,
}

/// `conversation.image`: the image's bytes as stored when the call ended (the panel shows it;
/// the model only ever read its descriptor).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImageReply {
    pub mime_type: String,
    /// The image's bytes, base64 (standard alphabet, padded); at most 4 MiB decoded.
    pub data: String,
    /// SHA-256 (lowercase hex) of the decoded bytes: their name in the project's store.
    pub sha256: String,
}
