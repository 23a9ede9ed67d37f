//! Wire contracts of owner console: `console.run`, `console.stop`, `console.list`, `console.output`.

use crate::contract::{reply, schema, CallerKind, Effect, Needs, OperationSpec, LOCAL_ONLY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `console.run`: run a shell command in the project folder (or a folder inside it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRequest {
    pub project_id: String,
    pub change_id: String,
    /// Given to `$SHELL -c` (fallback `/bin/sh`).
    pub command: String,
    /// A project-relative folder; default the project folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
}

/// `console.stop`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StopRequest {
    pub project_id: String,
    pub command_id: String,
}

/// `console.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
}

/// `console.output`: one page of a command's kept output.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputRequest {
    pub project_id: String,
    pub command_id: String,
    /// Offset in the output: bytes written before it, both streams counted (a byte keeps its
    /// offset while the command runs); default 0.
    #[serde(default)]
    pub offset: Option<u64>,
    /// At most `console.maxReadBytes`; default that.
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

/// One command's record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CommandView {
    pub command_id: String,
    pub change_id: String,
    pub command: String,
    /// Project-relative; `""` is the project folder.
    pub cwd: String,
    pub by: String,
    pub accepted_at: String,
    /// `starting`, `running`, `continuing`, `exited` or `unknown`.
    pub state: String,
    pub pid: Option<i32>,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub stopped_by: Option<String>,
    pub stop_requested_at: Option<String>,
    pub stdout_bytes: Option<u64>,
    pub stderr_bytes: Option<u64>,
    /// Bytes between the kept head and tail.
    pub omitted_bytes: Option<u64>,
    /// Why the state is `unknown`, or why the command could not start.
    pub note: Option<String>,
}

/// `console.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ListReply {
    pub commands: Vec<CommandView>,
}

/// One chunk of output (`stdout`/`stderr`, base64 bytes), or the cut (`cut`, the omitted count).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChunkView {
    pub stream: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub omitted_bytes: Option<u64>,
}

/// `console.output`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputPage {
    pub command_id: String,
    pub offset: u64,
    pub next_offset: u64,
    /// The offset just past the last byte written so far (what `console.changed` reports as
    /// `outputBytes`).
    pub size: u64,
    /// The command ended and this page reached the end of what is kept.
    pub complete: bool,
    pub chunks: Vec<ChunkView>,
}

const fn op(
    name: &'static str,
    effect: Effect,
    callers: &'static [CallerKind],
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.1.0",
        owner: Some(Owner::Console),
        needs: Needs::Owner,
        effect,
        callers,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &["console.changed"],
    }
}

/// Readers of the record: the person, the operator and an Agent grant.
const READERS: &[CallerKind] = &[
    CallerKind::Local,
    CallerKind::Operator,
    CallerKind::Agent,
    CallerKind::Paired,
];

pub const OPERATIONS: &[OperationSpec] = &[
    op("console.run", Effect::Write, LOCAL_ONLY,
        "Local browser only: run a shell command ($SHELL -c, fallback /bin/sh) in the project folder or a folder inside it, detached under a guard so it outlives the service; the same changeId returns the same record and never runs twice.",
        schema::<RunRequest>, reply::<CommandView>, &["invalid", "not_found", "conflict", "expired", "limit", "unavailable"]),
    op("console.stop", Effect::Write, LOCAL_ONLY,
        "Local browser only: SIGTERM the command's process group, SIGKILL after console.stopGraceMs; the record says who stopped it.",
        schema::<StopRequest>, reply::<CommandView>, &["invalid", "not_found"]).retained(),
    op("console.list", Effect::Read, READERS, "Every retained command record of the project, oldest first.",
        schema::<ListRequest>, reply::<ListReply>, &["invalid", "not_found"]).retained(),
    op("console.output", Effect::Read, READERS,
        "One page (at most console.maxReadBytes) of a command's kept output, live while it runs: chunks in the order read, each with its stream (bytes base64), and the head/tail cut as a chunk with the count between (again, with the new count, when a reader fell behind the moving tail); offsets count every byte written.",
        schema::<OutputRequest>, reply::<OutputPage>, &["invalid", "not_found", "limit"]).retained(),
];
