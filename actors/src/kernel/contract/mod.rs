//! Wire contracts of owner kernel (Notebook): `kernel.run/read/inspect/plot/interrupt/stop` and their wire types.

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY, LOCAL_ONLY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod remote;
mod views;
pub use remote::*;
pub use views::*;

/// The language of a session.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    R,
    Python,
}

impl Language {
    pub fn name(self) -> &'static str {
        match self {
            Language::R => "r",
            Language::Python => "python",
        }
    }
}

/// `kernel.run`: queue a cell in its language's session (started when none is live).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRequest {
    pub project_id: String,
    pub language: Language,
    /// At most `kernel.maxCodeBytes` bytes.
    pub code: String,
    /// The caller's identity of this cell: the same one returns the same cell, never run twice.
    pub change_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    /// Wait up to this long (at most `kernel.maxWaitMs`) for the cell to end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    /// A program inside the project (e.g. `.venv/bin/python`), kept for the language's later sessions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interpreter: Option<String>,
}

/// `kernel.read`: sessions, their variables and one page of cells; never starts a session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    /// Only this cell (its id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cell_id: Option<String>,
    /// Cells after this position in arrival order (the `next` of a previous page).
    #[serde(default)]
    pub after: u64,
    /// At most this many cells (default and maximum 100).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u32>,
}

/// How a table page is sorted.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SortInput {
    pub column: String,
    #[serde(default)]
    pub descending: bool,
}

/// `kernel.inspect`: one value of a live session; never starts, waits for or changes a session.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InspectRequest {
    pub project_id: String,
    pub language: Language,
    /// A name or a path to a part (`df`, `fit$coefficients`, positions).
    pub path: String,
    #[serde(default)]
    pub offset: u64,
    /// Rows or elements of the page (default `inspectRows`, at most 200).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sort: Option<SortInput>,
}

/// `kernel.plot`: one kept plot as PNG bytes.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlotRequest {
    pub project_id: String,
    pub cell_id: String,
    /// The plot's position among the cell's kept plots (0-based).
    pub index: u32,
}

/// `kernel.interrupt`: a running cell gets SIGINT, a waiting one is not run, an ended one is returned.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CellRequest {
    pub project_id: String,
    pub cell_id: String,
}

/// `kernel.stop`: end one session (SIGTERM, SIGKILL after `stopGraceMs`).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopRequest {
    pub project_id: String,
    pub session_id: String,
}

const fn op(
    name: &'static str,
    effect: Effect,
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.1.0",
        owner: Some(Owner::Kernel),
        needs: Needs::Owner,
        effect,
        callers: ANY,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &["kernel.changed"],
    }
}

const fn local_only(mut o: OperationSpec) -> OperationSpec {
    o.callers = LOCAL_ONLY;
    o
}

pub const OPERATIONS: &[OperationSpec] = &[
    op("kernel.run", Effect::Write,
        "Queue a cell (code, changeId per caller, purpose, interpreter) in its language's live session, starting one when none is live; waitMs waits up to kernel.maxWaitMs and returns the cell as it stands. Cells run one at a time per session in arrival order.",
        schema::<RunRequest>, reply::<CellView>, &["invalid", "conflict", "limit", "unavailable"]),
    op("kernel.read", Effect::Read,
        "The project's sessions, their variables and a page of cells in arrival order (by, purpose, code, output in printed order, plots, end); never starts a session.",
        schema::<ReadRequest>, reply::<ReadReply>, &["invalid", "not_found"]).retained(),
    op("kernel.inspect", Effect::Read,
        "One value of a live session (kind, class, size, facts, a page, the code that reaches it); answers none, busy, missing, timeout, failed or ended and never starts, waits for or changes a session.",
        schema::<InspectRequest>, reply::<InspectReply>, &["invalid", "unavailable"]),
    op("kernel.plot", Effect::Read, "One kept plot of a cell as PNG bytes (base64).",
        schema::<PlotRequest>, reply::<PlotReply>, &["invalid", "not_found"]).retained(),
    op("kernel.interrupt", Effect::Write,
        "A running cell is stopped with SIGINT (its session and values stay); a waiting cell is not run; an ended cell is returned unchanged.",
        schema::<CellRequest>, reply::<CellView>, &["invalid", "not_found", "unavailable"]).retained(),
    local_only(op("kernel.stop", Effect::Write,
        "End one session: SIGTERM, SIGKILL after kernel.stopGraceMs; its running cell ends with an error and its waiting cells are not run. Local browser only.",
        schema::<StopRequest>, reply::<SessionView>, &["invalid", "not_found"])).retained(),
];
