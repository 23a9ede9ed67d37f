//! Contracts of `context.create` and `context.read` (owner: agent; each kind needs only the owner of its source).

use crate::contract::{schema, Effect, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RangeSpec {
    pub start: u64,
    pub end: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BufferSpec {
    pub document_id: String,
    pub version: u64,
    pub range: RangeSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntitiesSpec {
    pub namespace: String,
    pub keys: Vec<String>,
}

/// Exactly one of `buffer`, `entities`, `media`, `run` (CONVENTIONS, the context union).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateRequest {
    pub project_id: String,
    pub change_id: String,
    pub buffer: Option<BufferSpec>,
    pub entities: Option<EntitiesSpec>,
    /// A media rectangle `{resource:{id,version}, page, units, rect}` (needs the media owner).
    pub media: Option<serde_json::Value>,
    /// One managed run `{operationId}` (needs managed R execution).
    pub run: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    pub context_id: String,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "context.create",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Freeze a context: an exact buffer version and range, declared entities, a media rectangle, or one run.",
        request: schema::<CreateRequest>,
        response: schema::<serde_json::Value>,
        errors: &["invalid", "not_found", "stale", "limit", "unavailable", "conflict"],
        events: &[],
    },
    OperationSpec {
        name: "context.read",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Read a frozen context.",
        request: schema::<ReadRequest>,
        response: schema::<serde_json::Value>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
];
