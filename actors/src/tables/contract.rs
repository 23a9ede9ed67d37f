//! Wire contracts of owner Tables: `data.page`, `data.compare`, `selection.set`, `selection.read`.

use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One sort key of `data.page`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SortSpec {
    pub column: String,
    #[serde(default)]
    pub descending: bool,
}

/// One filter of `data.page`: `eq|ne|lt|le|gt|ge|contains|missing`, `value` typed by the column;
/// or `in` on the key column of a keyed table, `value` an array of at most 10,000 keys.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FilterSpec {
    pub column: String,
    pub op: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<serde_json::Value>,
}

/// `data.page`: rows `[offset, offset + limit)` of the filtered, sorted table.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PageRequest {
    pub project_id: String,
    pub resource: ResourceRef,
    pub offset: u64,
    /// At most `resources.maxPageRows`.
    pub limit: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sort: Vec<SortSpec>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filter: Vec<FilterSpec>,
    /// Only these columns' cells are returned (default: every column); an unknown or repeated
    /// name is `invalid` naming it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

/// The query a page answers (echoed).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageQuery {
    pub resource: ResourceRef,
    pub offset: u64,
    pub limit: u64,
    pub sort: Vec<SortSpec>,
    pub filter: Vec<FilterSpec>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub columns: Option<Vec<String>>,
}

/// One row: its entity key (keyed tables) and typed cells by column name.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Row {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub cells: serde_json::Map<String, serde_json::Value>,
}

/// `data.page` reply: `total` rows pass the filter.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PageReply {
    pub query: PageQuery,
    pub total: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    pub rows: Vec<Row>,
}

/// One compared field pair.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FieldPair {
    pub left_field: String,
    pub right_field: String,
}

/// `data.compare`: two keyed versions joined by key; `fields` or the old single-field form.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompareRequest {
    pub project_id: String,
    pub left: ResourceRef,
    pub right: ResourceRef,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Vec<FieldPair>>,
    /// The old single-field form (with `rightField`); not together with `fields`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub left_field: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub right_field: Option<String>,
    /// Only `equal-string`.
    pub mapping: String,
    /// `left`, `inner` or `full`.
    pub join: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// Counts of a comparison.
#[derive(Debug, Clone, Default, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareCounts {
    pub matched: u64,
    pub left_only: u64,
    pub right_only: u64,
}

/// One compared value: `diff = right - left`, null when either is missing.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FieldValue {
    pub field: String,
    pub left: Option<f64>,
    pub right: Option<f64>,
    pub diff: Option<f64>,
}

/// One matched key.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Matched {
    pub key: String,
    pub values: Vec<FieldValue>,
}

/// `data.compare` reply (one page of at most `resources.maxPageRows` entries).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompareReply {
    pub namespace: String,
    pub counts: CompareCounts,
    pub matched: Vec<Matched>,
    pub left_only: Vec<String>,
    pub right_only: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

/// `selection.set`: the selected entity keys of one namespace in one scope.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectionRequest {
    pub project_id: String,
    pub change_id: String,
    /// `caller`, `view` (with `viewId`) or `shared`.
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_id: Option<String>,
    pub namespace: String,
    /// At most 10,000 keys, each a non-empty string.
    pub keys: Vec<String>,
}

/// `selection.set` reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionReply {
    pub version: u64,
}

/// `selection.read`: one selection's keys, by scope and namespace (as `selection.set` names them).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelectionReadRequest {
    pub project_id: String,
    /// `caller` (the caller's own), `view` (with `viewId`) or `shared`.
    pub scope: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub view_id: Option<String>,
    pub namespace: String,
}

/// `selection.read` reply: version 0 and no keys for a selection never set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectionReadReply {
    pub scope: String,
    /// The caller's principal or the view id; absent for `shared`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
    pub namespace: String,
    pub keys: Vec<String>,
    pub version: u64,
    /// Who set it last, and when (ms since the epoch); absent when never set.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub principal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_ms: Option<i64>,
}

/// Operations of owner Tables.
pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "data.page",
        version: "0.3.0",
        owner: Some(Owner::Tables),
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "A page of a declared table: typed cells, filter (including a key set, `in`) and stable sort (missing last), chosen columns; the first read validates the whole table and reports problems by row and column.",
        request: schema::<PageRequest>,
        response: schema::<PageReply>,
        errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "data.compare",
        version: "0.2.0",
        owner: Some(Owner::Tables),
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Join two keyed table versions by key (left, inner, full) and compare numeric fields: diff = right - left; paged.",
        request: schema::<CompareRequest>,
        response: schema::<CompareReply>,
        errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "selection.set",
        version: "0.2.0",
        owner: Some(Owner::Tables),
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Set the selected entity keys of a namespace in the caller's, a view's or the shared scope; selection.changed carries the keys up to 8 KiB of them, else keys: null (read them with selection.read).",
        request: schema::<SelectionRequest>,
        response: schema::<SelectionReply>,
        errors: &["invalid", "conflict", "limit", "unavailable"],
        events: &["selection.changed"],
    },
    OperationSpec {
        name: "selection.read",
        version: "0.1.0",
        owner: Some(Owner::Tables),
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "The current keys of one selection (the caller's, a view's or the shared scope) by namespace, with its version and who set it.",
        request: schema::<SelectionReadRequest>,
        response: schema::<SelectionReadReply>,
        errors: &["invalid", "unavailable"],
        events: &[],
    },
];
