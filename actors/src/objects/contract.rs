//! Wire contract of owner R's `object.read`.

use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `object.read`: a selection of an exported object snapshot
/// `{"schemaVersion":1,"classes":[...],"provenance":{...},"value":...}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectReadRequest {
    pub project_id: String,
    pub resource: ResourceRef,
    /// An RFC 6901 pointer into the snapshot's `value` (`""` or absent: the whole value).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pointer: Option<String>,
}

/// `object.read` reply: the snapshot's facts and the selected JSON (at most `resources.maxReadBytes`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectReadReply {
    pub schema_version: u64,
    /// The R classes of the whole exported value.
    pub classes: Vec<String>,
    pub provenance: serde_json::Map<String, serde_json::Value>,
    /// The pointer that was applied (`""` for the whole value).
    pub pointer: String,
    pub value: serde_json::Value,
    /// Size of `value` as compact JSON.
    pub bytes: u64,
}

/// Operations of owner R that read retained data (managed execution arrives with its issue).
pub const OPERATIONS: &[OperationSpec] = &[OperationSpec {
    name: "object.read",
    version: "0.2.0",
    owner: Some(Owner::R),
    needs: Needs::Owner,
    effect: Effect::Read,
    callers: ANY,
    project_scoped: true,
    summary: "Read an exported R object snapshot (schemaVersion 1) by RFC 6901 pointer into its value; selections above resources.maxReadBytes are refused. Never starts R.",
    request: schema::<ObjectReadRequest>,
    response: schema::<ObjectReadReply>,
    errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
    events: &[],
}];
