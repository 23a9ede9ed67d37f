//! Contracts of the agent owner's own operations: `binding.open/close/list/activity` and `activity.report`.

use crate::contract::{schema, CallerKind, Effect, OperationSpec};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const CALLERS: &[CallerKind] = &[CallerKind::Local, CallerKind::Operator, CallerKind::Agent];

/// `binding.open`: record an external Agent client attached to the project.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenRequest {
    pub project_id: String,
    /// The caller identity (1-128 bytes).
    pub change_id: String,
    /// A label for the person (1-200 characters).
    pub label: String,
    /// The client kind, e.g. `claude-code`, `codex`, `mcp` (1-64 characters).
    pub client: String,
    /// The Agent session; an Agent's own is implied (and must match if given); required for the person or operator.
    pub session: Option<String>,
}

/// `binding.close`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseRequest {
    pub project_id: String,
    pub change_id: String,
    pub binding_id: String,
}

/// `binding.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
}

/// `binding.activity`: the recorded calls of a binding's session, oldest first.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActivityRequest {
    pub project_id: String,
    pub binding_id: String,
    pub cursor: Option<String>,
    /// Records per page (default 50, at most 256).
    pub limit: Option<u64>,
}

/// A binding on the wire.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BindingOut {
    pub binding_id: String,
    pub label: String,
    pub client: String,
    pub session: String,
    pub principal: String,
    pub opened_at: String,
    pub closed_at: Option<String>,
}

/// `binding.list` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub bindings: Vec<BindingOut>,
}

/// A refusal the adapter made locally.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Refusal {
    /// A wire code (`invalid`, `not_found`, `stale`, `limit`, `forbidden`, `unavailable`, `unknown`).
    pub code: String,
    /// Shown to nobody and not recorded (it may quote inputs); at most 1000 characters.
    pub reason: String,
}

/// `activity.report`: the MCP adapter reports a call it refused locally so it is recorded.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReportRequest {
    pub project_id: String,
    /// The operation the Agent asked for (1-128 characters).
    pub operation: String,
    pub refusal: Refusal,
}

/// `activity.report` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportReply {
    /// Always true: the record is appended without waiting (group commit).
    pub accepted: bool,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "binding.open",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Write,
        callers: CALLERS,
        project_scoped: true,
        summary: "Record an external Agent client attached to the project (label, client kind, session); at most maxBindings open.",
        request: schema::<OpenRequest>,
        response: schema::<BindingOut>,
        errors: &["invalid", "conflict", "limit", "unavailable"],
        events: &["binding.changed"],
    },
    OperationSpec {
        name: "binding.close",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Write,
        callers: CALLERS,
        project_scoped: true,
        summary: "Close a binding (an Agent only its own session's).",
        request: schema::<CloseRequest>,
        response: schema::<BindingOut>,
        errors: &["invalid", "not_found", "conflict"],
        events: &["binding.changed"],
    },
    OperationSpec {
        name: "binding.list",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Read,
        callers: CALLERS,
        project_scoped: true,
        summary: "The project's bindings, open and recently closed.",
        request: schema::<ListRequest>,
        response: schema::<ListReply>,
        errors: &["invalid"],
        events: &[],
    },
    OperationSpec {
        name: "binding.activity",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Read,
        callers: CALLERS,
        project_scoped: true,
        summary: "The tool receipts of a binding's session: its recorded calls, oldest first, paged (bounded by maxActivities).",
        request: schema::<ActivityRequest>,
        response: schema::<serde_json::Value>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
    OperationSpec {
        name: "activity.report",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Write,
        callers: &[CallerKind::Agent],
        project_scoped: true,
        summary: "The MCP adapter reports a call it refused locally (schema rejection, missing contract) so it is recorded as activity. Always available to an Agent grant.",
        request: schema::<ReportRequest>,
        response: schema::<ReportReply>,
        errors: &["invalid"],
        events: &["activity.changed"],
    },
];
