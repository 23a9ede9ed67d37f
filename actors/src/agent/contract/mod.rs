//! Contracts of the agent owner's operations: `binding.open/close/list/activity` and `activity.report` here; the service-level Agent access ones (`session.*`, `capability.*`) in [`session`].

pub mod session;

use crate::contract::{reply, schema, CallerKind, Effect, Needs, OperationSpec};
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

/// One recorded Agent call on the wire (no inputs, no token). Fields of these replies are in
/// wire-name order (the bytes of the sorted map they replaced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityView {
    /// The refusal's wire code, when refused.
    pub code: Option<String>,
    /// Ids named by the request and the reply (`documentId`, `changeId`, ...).
    pub ids: std::collections::BTreeMap<String, String>,
    pub method: String,
    /// `ok` or `refused`.
    pub outcome: String,
    /// `agent:<session>`.
    pub principal: String,
    /// Per project, from 1.
    pub seq: u64,
    /// `service` (the edge saw the call) or `adapter` (the MCP adapter refused it and reported it).
    pub source: String,
    /// RFC 3339 UTC, milliseconds.
    pub time: String,
}

impl crate::agent::Activity {
    /// The wire form.
    pub fn view(&self) -> ActivityView {
        ActivityView {
            code: self.code.clone(),
            ids: self.ids.clone(),
            method: self.method.clone(),
            outcome: self.outcome.clone(),
            principal: format!("agent:{}", self.session),
            seq: self.seq,
            source: self.source.clone(),
            time: rho_plumbing::time::rfc3339_ms(self.time_ms),
        }
    }
}

/// `binding.activity`: one page of a binding's session's recorded calls, oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ActivityPage {
    pub binding_id: String,
    /// Records evicted so far (`maxActivities`), the oldest first.
    pub evicted: u64,
    /// Continues after the last record of this page; `null` on the last page.
    pub next_cursor: Option<String>,
    /// The first seq still retained: records before it were evicted.
    pub oldest_seq: u64,
    pub records: Vec<ActivityView>,
    pub session: String,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "binding.open",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        needs: Needs::Owner,
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
        needs: Needs::Retained,
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
        needs: Needs::Retained,
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
        needs: Needs::Retained,
        effect: Effect::Read,
        callers: CALLERS,
        project_scoped: true,
        summary: "The tool receipts of a binding's session: its recorded calls, oldest first, paged (bounded by maxActivities).",
        request: schema::<ActivityRequest>,
        response: reply::<ActivityPage>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
    OperationSpec {
        name: "activity.report",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        needs: Needs::Retained,
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
