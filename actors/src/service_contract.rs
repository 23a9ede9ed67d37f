//! Contracts of the service's own operations: protocol, projects, capabilities and observation.

use crate::contract::{
    reply, schema, CallerKind, Effect, Needs, OperationSpec, ANY, PERSON_OR_OPERATOR,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `protocol.describe`: pages of operation summaries, or one full contract.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeRequest {
    /// One operation's full contract instead of the summary pages.
    pub operation: Option<String>,
    /// Continuation of a previous page.
    pub cursor: Option<String>,
}

/// One operation in the summary pages.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationSummary {
    pub name: String,
    pub version: String,
    pub owner: String,
    pub effect: String,
    pub summary: String,
    /// `sha256:<hex>` of the operation's canonical contract.
    pub hash: String,
}

/// `protocol.describe` reply: `operations` (+ `next`) or `contract`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescribeReply {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<OperationSummary>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contract: Option<serde_json::Value>,
}

/// `project.create`: a new project in a new folder below the root.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectCreateRequest {
    /// One path segment: the folder name below the root and the project's name.
    pub name: String,
}

/// `project.open`: register an existing folder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProjectOpenRequest {
    /// Relative to the root; an absolute path outside the root only for `local`/`operator`.
    pub path: String,
}

/// A project as `project.create`/`project.open` answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectRef {
    pub id: String,
    pub name: String,
    /// Canonical absolute folder.
    pub path: String,
}

/// `project.list` takes no input.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Empty {}

/// One row of `project.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectListing {
    pub id: String,
    pub name: String,
    pub path: String,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `project.list` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProjectListReply {
    pub projects: Vec<ProjectListing>,
}

/// `project.entries`: one page of a project folder's listing.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntriesRequest {
    pub project_id: String,
    /// A folder relative to the project (default: its top).
    pub path: Option<String>,
    pub cursor: Option<String>,
}

/// One entry of `project.entries`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub name: String,
    pub path: String,
    /// `file`, `directory` or `source`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified: Option<String>,
}

/// `project.entries` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct EntriesReply {
    pub entries: Vec<Entry>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// `observation.snapshot`: current facts and the event cursor they correspond to.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SnapshotRequest {
    pub project_id: Option<String>,
}

/// `pairing.mint`: a one-time browser link (operator only; `rho --pair`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PairRequest {
    /// Narrow the link to one folder below the service root.
    pub folder: Option<String>,
}

/// `pairing.mint` reply: the link (a credential: print it, never log it) and its expiry.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PairReply {
    pub url: String,
    pub expires_at: String,
    pub folder: Option<String>,
}

const CORE_ERRORS: &[&str] = &["invalid", "limit"];

/// The service's own operations.
pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "protocol.describe",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: false,
        summary: "Pages of operation summaries, or one operation's full contract.",
        request: schema::<DescribeRequest>,
        response: schema::<DescribeReply>,
        errors: &["invalid", "not_found", "stale"],
        events: &[],
    },
    OperationSpec {
        name: "project.create",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: PERSON_OR_OPERATOR,
        project_scoped: false,
        summary: "Create a project in a new folder below the root; a second create of a name is a conflict naming the existing id.",
        request: schema::<ProjectCreateRequest>,
        response: schema::<ProjectRef>,
        errors: &["invalid", "conflict", "limit", "unavailable"],
        events: &["project.changed"],
    },
    OperationSpec {
        name: "project.open",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: PERSON_OR_OPERATOR,
        project_scoped: false,
        summary: "Register an existing project folder.",
        request: schema::<ProjectOpenRequest>,
        response: schema::<ProjectRef>,
        errors: &["invalid", "not_found", "conflict", "forbidden", "unavailable"],
        events: &["project.changed"],
    },
    OperationSpec {
        name: "project.list",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: PERSON_OR_OPERATOR,
        project_scoped: false,
        summary: "Every registered project with its availability.",
        request: schema::<Empty>,
        response: schema::<ProjectListReply>,
        errors: CORE_ERRORS,
        events: &[],
    },
    OperationSpec {
        name: "project.entries",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "One page (200) of a project folder's entries, sorted by name, .rho hidden.",
        request: schema::<EntriesRequest>,
        response: schema::<EntriesReply>,
        errors: &["invalid", "not_found", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "capability.list",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: false,
        summary: "Selected owners with availability, their actions and UI entries, and unavailable actions.",
        request: schema::<Empty>,
        response: schema::<crate::contract::capability_reply::CapabilityList>,
        errors: CORE_ERRORS,
        events: &[],
    },
    OperationSpec {
        name: "observation.snapshot",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: false,
        summary: "Current facts (limits, owners, projects or one project) with the event cursor they correspond to.",
        request: schema::<SnapshotRequest>,
        response: reply::<crate::snapshot_contract::SnapshotReply>,
        errors: &["invalid", "not_found", "limit", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "pairing.mint",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: &[CallerKind::Operator],
        project_scoped: false,
        summary: "Mint a one-time browser link (five minutes, single use), optionally narrowed to one folder below the root.",
        request: schema::<PairRequest>,
        response: schema::<PairReply>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
];
