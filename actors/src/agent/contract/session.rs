//! Contracts of the service-level Agent access operations: `session.grant/revoke/instructions/connect` and `capability.index/resolve`.

use crate::contract::{reply, schema, CallerKind, Effect, Needs, OperationSpec, LOCAL_ONLY};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The person or the operator, never an Agent.
const GRANTORS: &[CallerKind] = &[CallerKind::Local, CallerKind::Operator];
/// Any Agent grant (implicitly), and the person or operator to preview.
const KNOWLEDGE: &[CallerKind] = &[CallerKind::Local, CallerKind::Operator, CallerKind::Agent];

/// `session.grant`: mint (or keep) a project-scoped Agent credential for one session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GrantRequest {
    /// The project (exactly one of `projectId` and `folder`).
    pub project_id: Option<String>,
    /// A registered project's folder relative to the service root (what `rho --grant --project` sends).
    pub folder: Option<String>,
    /// The session name (1-64 of A-Z a-z 0-9 . _ -); the principal is `agent:<session>`.
    pub session: String,
    /// Operation names; default: every grantable operation of the selected owners plus `project.entries`.
    pub methods: Option<Vec<String>>,
    /// Only `layered-business` in this build.
    pub profile: Option<String>,
    /// RFC 3339; default 30 days from now; a repeat without it keeps the current expiry.
    pub expires_at: Option<String>,
}

/// The MCP server entry an Agent client registers.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct McpEntry {
    /// Always `rho`.
    pub name: String,
    /// Canonical path of the running `rho` executable.
    pub command: String,
    /// `["--mcp", "<absolute connection file>"]`.
    pub args: Vec<String>,
}

/// `session.grant` reply (never a token).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantReply {
    pub project_id: String,
    pub project_name: String,
    pub session: String,
    pub profile: String,
    pub methods: Vec<String>,
    pub expires_at: String,
    pub created_at: String,
    /// The private connection file (0600) holding the credential.
    pub connection_file: String,
    /// True when the same valid grant existed and its credential was kept.
    pub reused: bool,
    pub mcp: McpEntry,
}

/// `session.revoke`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevokeRequest {
    pub project_id: String,
    pub session: String,
}

/// `session.revoke` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevokeReply {
    pub project_id: String,
    pub session: String,
    pub revoked: bool,
}

/// `session.instructions`: what to paste into any Agent's configuration (no credential).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstructionsRequest {
    pub project_id: String,
    /// Default `claude-code`.
    pub session: Option<String>,
}

/// `session.instructions` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InstructionsReply {
    pub project_id: String,
    pub project_name: String,
    pub session: String,
    /// The launcher: the canonical `rho` executable with `--mcp <connection file>`.
    pub mcp: McpEntry,
    /// Whether that session currently holds a valid grant (the file exists only then).
    pub granted: bool,
    /// The command to grant it: `rho --grant <connection.json> --project-id <id> --session <name>`.
    pub grant_command: String,
}

/// `session.connect`: grant a project to Claude Code or Codex and run that client's own `mcp add`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectRequest {
    pub project_id: String,
    /// `claude-code` or `codex` (also the session name).
    pub agent: String,
}

/// `capability.index`: the caller's scope, owner summaries, or one owner's / a search's operations (20 a page).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IndexRequest {
    pub project_id: String,
    /// An owner label from the summaries (`documents`, `service`, ...).
    pub owner: Option<String>,
    /// Case-insensitive text matched against operation names and summaries.
    pub search: Option<String>,
    /// `nextCursor` of the previous page (pins caller, query and catalog).
    pub cursor: Option<String>,
    /// Reply budget in bytes (default 16384, at most 65536).
    pub max_bytes: Option<u64>,
}

/// `capability.resolve`: full Agent contracts plus relevant skills, paged as whole objects.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResolveRequest {
    pub project_id: String,
    /// 1 to 16 operation names (`layeredGrantLimits.maxEntries`).
    pub operations: Vec<String>,
    /// Refs (`sha256:<hex>`) whose bodies the caller holds complete: returned as `known: true` without body (at most 128, `layeredGrantLimits.maxKnownRefs`).
    pub known_refs: Option<Vec<String>>,
    pub cursor: Option<String>,
    /// Reply budget in bytes (default 16384, at most 65536).
    pub max_bytes: Option<u64>,
}

/// The first index page's statement of the caller's grant.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexScope {
    pub project_id: String,
    pub project_name: String,
    /// `null` for the person or operator (who see the default business grant).
    pub session: Option<String>,
    pub profile: String,
    pub expires_at: Option<String>,
    /// Granted methods (the implicit capability.index/resolve and activity.report not counted).
    pub method_count: u64,
}

/// A content reference.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
pub struct Ref {
    /// `sha256:<hex>` of the exact body `capability.resolve` returns.
    #[serde(rename = "ref")]
    pub reference: String,
}

/// One owner in the summaries.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OwnerSummary {
    pub owner: String,
    pub summary: String,
    /// How many of its operations the caller may call.
    pub operations: u64,
    pub skill: Ref,
}

/// One operation in an owner's or a search's pages.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexOperation {
    pub name: String,
    pub owner: String,
    pub summary: String,
    /// `read` or `write`.
    pub effect: String,
    /// The contract's ref; send it as `Rho-Contract` on the call.
    pub contract: Ref,
    pub skill: Ref,
}

/// `capability.index` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct IndexReply {
    /// On the first page of a fresh index (no cursor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<IndexScope>,
    /// When neither `owner` nor `search` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub owners: Option<Vec<OwnerSummary>>,
    /// For `owner` or `search`: up to 20 a page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<IndexOperation>>,
    pub next_cursor: Option<String>,
}

/// One knowledge object: `kind` `contract` (body: the public contract without the injected
/// `projectId`, its schemas' `$defs` holding the complete dependency closure) or `skill`
/// (body: markdown).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct KnowledgeObject {
    #[serde(rename = "ref")]
    pub reference: String,
    pub kind: String,
    /// The operation (contract) or owner label (skill).
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body: Option<serde_json::Value>,
    /// True when the caller listed the ref in `knownRefs` (no body).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known: Option<bool>,
}

/// `capability.resolve` reply: whole objects within `maxBytes`. `complete` is true on the page
/// that ends the selection; a first object that does not fit gives no objects, `complete:
/// false` and `requiredBytes`, and `nextCursor` continues at that object.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResolveReply {
    pub objects: Vec<KnowledgeObject>,
    pub complete: bool,
    pub next_cursor: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required_bytes: Option<u64>,
}

/// One bounded run of a client CLI (`claude mcp add`, `codex mcp add`). Fields of these replies
/// are in wire-name order (the bytes of the sorted map they replaced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ClientView {
    pub args: Vec<String>,
    /// The client program.
    pub command: String,
    /// `null` when it was stopped (or did not start).
    pub exit_code: Option<i32>,
    /// What it printed (stdout, then stderr), at most 8 KiB.
    pub output: String,
    pub timed_out: bool,
    pub truncated: bool,
}

/// `session.connect`: the grant and the client's own `mcp add`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ConnectReply {
    /// `claude-code` or `codex`.
    pub agent: String,
    pub client: ClientView,
    /// Always true (a refusal is an error).
    pub connected: bool,
    #[serde(serialize_with = "crate::contract::sorted")]
    pub grant: GrantReply,
    pub project_id: String,
    /// The Agent session (named like the agent).
    pub session: String,
}

/// Agent access operations of the service itself.
pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "session.grant",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: GRANTORS,
        project_scoped: false,
        summary: "Grant one project to a named Agent session (profile layered-business; default: every grantable operation of the selected owners plus project.entries; at most layeredGrantLimits.maxMethods, refused beyond, never cut). Writes the private connection file <state>/agents/<projectId>/<session>.json. The same valid grant keeps its credential; a changed scope, profile or expiry mints a new one and the old token is refused at once.",
        request: schema::<GrantRequest>,
        response: schema::<GrantReply>,
        errors: &["invalid", "not_found", "limit", "unavailable"],
        events: &["grant.changed"],
    },
    OperationSpec {
        name: "session.revoke",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: GRANTORS,
        project_scoped: false,
        summary: "End one Agent session's grant at once and remove its connection file.",
        request: schema::<RevokeRequest>,
        response: schema::<RevokeReply>,
        errors: &["invalid", "not_found"],
        events: &["grant.changed"],
    },
    OperationSpec {
        name: "session.instructions",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: GRANTORS,
        project_scoped: false,
        summary: "The launcher (canonical rho executable, args --mcp <connection file>) and project id to paste into any Agent's configuration; no credential; starts nothing.",
        request: schema::<InstructionsRequest>,
        response: schema::<InstructionsReply>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
    OperationSpec {
        name: "session.connect",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: LOCAL_ONLY,
        project_scoped: false,
        summary: "Grant the project to claude-code or codex and run that client's own mcp add (claude mcp add -s local in the project folder; codex mcp add), each bounded at 20 s and 8 KiB of output. A grant that already existed is kept; a new one the client refused is revoked.",
        request: schema::<ConnectRequest>,
        response: reply::<ConnectReply>,
        errors: &["invalid", "not_found", "limit", "unavailable"],
        events: &["grant.changed"],
    },
    OperationSpec {
        name: "capability.index",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: KNOWLEDGE,
        project_scoped: true,
        summary: "The caller's grant scope (first page), owner summaries, or one owner's or a search's operations 20 a page, each with the refs of its contract and skill. Always available to an Agent grant. A continuation whose catalog or grant changed is stale.",
        request: schema::<IndexRequest>,
        response: schema::<IndexReply>,
        errors: &["invalid", "not_found", "stale", "limit"],
        events: &[],
    },
    OperationSpec {
        name: "capability.resolve",
        version: "1.0.0",
        owner: None,
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: KNOWLEDGE,
        project_scoped: true,
        summary: "Full Agent contracts (projectId stripped, complete schema closure) and the relevant skills for up to 16 operations, paged as whole objects within maxBytes (16 KiB default, 64 KiB at most); knownRefs omit bodies the caller holds. Always available to an Agent grant.",
        request: schema::<ResolveRequest>,
        response: schema::<ResolveReply>,
        errors: &["invalid", "not_found", "forbidden", "stale", "limit"],
        events: &[],
    },
];
