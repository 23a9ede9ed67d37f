//! Wire contract of owner Charts: `data.plot`.

use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `data.plot`: two numeric columns of a declared table as points.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlotRequest {
    pub project_id: String,
    pub resource: ResourceRef,
    /// An `integer` or `number` column.
    pub x: String,
    /// An `integer` or `number` column.
    pub y: String,
}

/// One point; `key` is the row's entity key in keyed tables. Integers travel as numbers
/// (precision beyond 2^53 is not kept in a plot).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Point {
    pub x: f64,
    pub y: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
}

/// How the points were chosen: `total` plottable rows (after dropping), every `step`-th kept
/// in file order starting with the first, `returned` of them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Sampling {
    pub sampled: bool,
    pub total: u64,
    pub returned: u64,
    /// Always `stride`.
    pub method: String,
    pub step: u64,
}

/// `data.plot` reply; `dropped` rows had a missing x or y.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlotReply {
    pub points: Vec<Point>,
    pub sampling: Sampling,
    pub dropped: u64,
    /// The key namespace of a keyed table.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

/// Operations of owner Charts.
pub const OPERATIONS: &[OperationSpec] = &[OperationSpec {
    name: "data.plot",
    version: "0.2.0",
    owner: Some(Owner::Charts),
    needs: Needs::Owner,
    effect: Effect::Read,
    callers: ANY,
    project_scoped: true,
    summary: "Two numeric columns of a declared table as points (with entity keys when keyed); rows missing x or y are dropped and counted; above resources.maxChartPoints every ceil(n/max)-th row in file order is kept.",
    request: schema::<PlotRequest>,
    response: schema::<PlotReply>,
    errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
    events: &[],
}];
