//! The kernel owner's records as they are journaled, kept and answered: cells, sessions, variables, plots.

use super::Language;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where a piece of a cell's output came from, in printed order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    Stdout,
    Stderr,
    Message,
    Warning,
    Error,
}

/// One piece of output (consecutive text of one stream is coalesced into one chunk).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputChunk {
    pub stream: Stream,
    pub text: String,
}

/// One kept plot: its PNG by digest under `.rho/plugins/kernel/`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlotRecord {
    pub page: u32,
    /// `sha256:<hex>` of the PNG.
    pub digest: String,
    pub bytes: u64,
    /// The earlier cell's plot this one redrew (R), as `<cellId>#<index>`.
    pub replaces: Option<String>,
}

/// Whether a cell waits, runs or has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CellState {
    Waiting,
    Running,
    Ended,
}

/// How a cell ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    Done,
    Error,
    Interrupted,
    NotRun,
    Unknown,
}

/// A cell's end: the outcome, who asked (interrupt, stop), when, and why in words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CellEnd {
    pub outcome: Outcome,
    pub by: Option<String>,
    pub at_ms: i64,
    pub reason: Option<String>,
}

/// One cell, as `kernel.run`, `kernel.read` and `kernel.interrupt` answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CellView {
    pub cell_id: String,
    /// Arrival position in the project (1, 2, ...): cells of a session run in this order.
    pub no: u64,
    pub language: Language,
    /// The session it ran in (none while it waits for one).
    pub session_id: Option<String>,
    /// The principal that ran it.
    pub by: String,
    pub change_id: String,
    pub purpose: Option<String>,
    pub code: String,
    pub state: CellState,
    pub queued_at_ms: i64,
    pub started_at_ms: Option<i64>,
    /// The program (project-relative when inside the project) and version that ran it.
    pub program: Option<String>,
    pub version: Option<String>,
    pub output: Vec<OutputChunk>,
    /// The output passed `maxOutputBytes`: the first bytes are kept, `omittedBytes` counted.
    pub cut: bool,
    pub omitted_bytes: u64,
    pub plots: Vec<PlotRecord>,
    /// Dropped plots and other facts said about the cell.
    pub notes: Vec<String>,
    /// Values it made or changed.
    pub defined: Vec<String>,
    /// Values it removed (none when a variables list was cut).
    pub removed: Option<Vec<String>>,
    pub end: Option<CellEnd>,
    /// The place its session ran at (`kernel.places`); none: this machine.
    pub place: Option<String>,
}

/// One variable of a live session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Variable {
    pub name: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub size: String,
    pub summary: String,
    /// The cell that last defined it.
    pub cell_id: Option<String>,
}

/// Whether a session starts, is live or has ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum SessionState {
    Starting,
    Live,
    Ended,
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum SessionEndReason {
    Stopped,
    Exited,
    StartFailed,
    RhoClosed,
}

/// A session's end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionEnd {
    pub reason: SessionEndReason,
    pub by: Option<String>,
    pub at_ms: i64,
    /// The exit status or what the process printed last.
    pub detail: Option<String>,
}

/// One session, as `kernel.read` and `kernel.stop` answer it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SessionView {
    pub session_id: String,
    pub language: Language,
    /// Project-relative when inside the project.
    pub program: String,
    pub version: Option<String>,
    pub pid: Option<u32>,
    pub state: SessionState,
    pub started_at_ms: i64,
    /// Principals that ran cells in it (the interpreter rule reads this).
    pub runners: Vec<String>,
    /// The project's interpreter it started with, if any.
    pub interpreter: Option<String>,
    pub variables: Vec<Variable>,
    pub variables_omitted: u64,
    pub end: Option<SessionEnd>,
    /// The place it runs at (`kernel.places`); none: this machine.
    pub place: Option<String>,
}

/// `kernel.read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadReply {
    pub sessions: Vec<SessionView>,
    pub cells: Vec<CellView>,
    /// The `after` of the next page, when more cells follow.
    pub next: Option<u64>,
    /// The interpreters the project keeps, by language.
    pub interpreters: Vec<InterpreterView>,
}

/// A project's kept interpreter of one language.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InterpreterView {
    pub language: Language,
    pub program: String,
}

/// What a value reading could answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum InspectAnswer {
    Value,
    None,
    Busy,
    Missing,
    Timeout,
    Failed,
    Ended,
}

/// `kernel.inspect`: the answer and, for `value`, the session's description of the value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectReply {
    pub answer: InspectAnswer,
    pub reason: Option<String>,
    /// kind, class, size, facts, page, code, parts (the runtime's shape).
    pub value: Option<serde_json::Value>,
    /// The cell it was read after.
    pub after_cell_id: Option<String>,
}

/// `kernel.plot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlotReply {
    pub cell_id: String,
    pub index: u32,
    pub digest: String,
    /// The PNG, base64.
    pub png: String,
}
