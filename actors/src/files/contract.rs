//! Wire contracts of owner Files: `resource.register`, `resource.capture`, `resource.list`, `resource.read`.

use super::decl::{MediaDecl, TableDecl};
use super::entity::ResourceRecord;
use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A resource reference `{id, version}` (CONVENTIONS, references).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceRef {
    pub id: String,
    pub version: u64,
}

/// `resource.register`: declare a project file's bytes as a resource version.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RegisterRequest {
    pub project_id: String,
    pub change_id: String,
    /// Project-relative, `/`-separated.
    pub path: String,
    /// e.g. `table`, `figure`, `object`, `file`.
    pub kind: String,
    /// e.g. `csv`, `png`, `json`.
    pub format: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub table: Option<TableDecl>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaDecl>,
    /// Bytes declared before their producer finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub partial: bool,
}

/// `resource.capture`: copy a project file into the immutable captured store.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CaptureRequest {
    pub project_id: String,
    pub change_id: String,
    pub path: String,
}

/// `resource.list`: one page of resources (latest versions), sorted by path.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
    pub cursor: Option<String>,
}

/// `resource.read`: a byte range of one exact version.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    pub resource: ResourceRef,
    pub offset: Option<u64>,
    /// At most `resources.maxReadBytes`; larger is refused, not clamped.
    pub length: Option<u64>,
}

/// Who registered a version, and when.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Provenance {
    pub principal: String,
    /// RFC 3339 UTC.
    pub time: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub operation_id: Option<String>,
}

/// One resource version as the wire shows it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResourceView {
    pub id: String,
    pub version: u64,
    pub path: String,
    pub kind: String,
    pub format: String,
    pub bytes: u64,
    pub sha256: String,
    pub provenance: Provenance,
    pub captured: bool,
    pub partial: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub table: Option<TableDecl>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaDecl>,
}

impl From<ResourceRecord> for ResourceView {
    fn from(r: ResourceRecord) -> Self {
        ResourceView {
            id: r.id.to_string(),
            version: r.version,
            path: r.path,
            kind: r.facts.kind,
            format: r.facts.format,
            bytes: r.facts.bytes,
            sha256: r.facts.sha256,
            provenance: Provenance {
                principal: r.principal,
                time: rho_plumbing::time::rfc3339_ms_opt(r.time_ms)
                    .unwrap_or_else(|| rho_plumbing::time::rfc3339_ms(0)),
                operation_id: r.facts.operation_id,
            },
            captured: r.facts.captured,
            partial: r.facts.partial,
            table: r.facts.table,
            media: r.facts.media,
        }
    }
}

/// One row of `resource.list`: the latest version and how many versions there are.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListedResource {
    #[serde(flatten)]
    pub latest: ResourceView,
    pub versions: u64,
}

/// `resource.list` reply.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub resources: Vec<ListedResource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// `resource.read` reply: base64 bytes of `[offset, offset + length)` of `total`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadReply {
    pub resource: ResourceRef,
    pub offset: u64,
    pub length: u64,
    pub total: u64,
    pub sha256: String,
    /// Standard base64 with padding.
    pub data: String,
}

/// Operations of owner Files.
pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "resource.register",
        version: "0.2.0",
        owner: Some(Owner::Files),
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Declare a project file's bytes as a resource version: same bytes and declaration answer the same {id, version}, changed ones the same id at version + 1.",
        request: schema::<RegisterRequest>,
        response: schema::<ResourceView>,
        errors: &["invalid", "not_found", "conflict", "limit", "unavailable"],
        events: &["resource.changed"],
    },
    OperationSpec {
        name: "resource.capture",
        version: "0.2.0",
        owner: Some(Owner::Files),
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Copy a project file into the project's immutable content-addressed store, so that version stays readable whatever happens to the file.",
        request: schema::<CaptureRequest>,
        response: schema::<ResourceView>,
        errors: &["invalid", "not_found", "conflict", "limit", "unavailable"],
        events: &["resource.changed"],
    },
    OperationSpec {
        name: "resource.list",
        version: "0.2.0",
        owner: Some(Owner::Files),
        needs: Needs::Retained,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "One page (200) of the project's resources (latest versions), sorted by path.",
        request: schema::<ListRequest>,
        response: schema::<ListReply>,
        errors: &["invalid", "not_found", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "resource.read",
        version: "0.2.0",
        owner: Some(Owner::Files),
        needs: Needs::Retained,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Base64 bytes of one exact version (at most resources.maxReadBytes per read); an uncaptured version whose file changed is stale with both digests.",
        request: schema::<ReadRequest>,
        response: schema::<ReadReply>,
        errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
        events: &[],
    },
];
