//! The contract of `context.list`: a project's retained contexts, newest first, optionally only one principal's (so an Agent finds what the person pointed at).

use super::ContextView;
use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The default page of `context.list`.
pub const DEFAULT_LIMIT: u64 = 20;
/// The largest page of `context.list`.
pub const MAX_LIMIT: u64 = 100;

/// `context.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
    /// Only the contexts this principal created (`local`, `paired:<id>`, `agent:<session>`);
    /// default: everyone's.
    #[serde(default)]
    pub principal: Option<String>,
    /// Contexts per reply, newest first (default 20, at most 100).
    #[serde(default)]
    pub limit: Option<u64>,
}

/// `context.list` reply: newest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub contexts: Vec<ContextView>,
    /// More contexts matched than `limit` returned (older ones).
    pub more: bool,
}

pub const OPERATIONS: &[OperationSpec] = &[OperationSpec {
    name: "context.list",
    version: "1.0.0",
    owner: Some(Owner::Agent),
    // Like `context.read`: a read of retained facts, served whatever is selected.
    needs: Needs::Retained,
    effect: Effect::Read,
    callers: ANY,
    project_scoped: true,
    summary: "The project's retained contexts, newest first, optionally only those one principal created (e.g. `local`: what the person pointed at); read one whole with context.read.",
    request: schema::<ListRequest>,
    response: reply::<ListReply>,
    errors: &["invalid", "not_found"],
    events: &[],
}];
