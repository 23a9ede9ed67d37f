//! Wire types of owner r's replies: the run record and its plan, log pages, file checks and exports.
//!
//! Fields are declared in the order of their wire names, so a reply serialized straight from
//! these types has the same bytes as the sorted JSON map it replaced (a test compares them).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where delivery to the Host stands (a delivery in flight is not yet known: `uncertain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum DeliveryView {
    NotSent,
    Sent,
    Uncertain,
}

/// Where execution stands as far as the service knows (`null` on the wire: not delivered yet).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ExecutionView {
    Running,
    Exited,
    Unknown,
}

/// The seed's stop states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum StopStateView {
    Requested,
    Signalled,
    Stopped,
    FinishedFirst,
    Unconfirmed,
}

/// How R ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExitView {
    /// RFC 3339 UTC, milliseconds.
    pub ended_at: Option<String>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Why R could not be started.
    pub spawn_error: Option<String>,
}

/// The stop facts of a cancelled run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StopView {
    /// When the stop was requested (RFC 3339 UTC).
    pub at: String,
    /// The Core's exit facts as observed when the stop was confirmed.
    pub core_exit: Option<ExitView>,
    pub requested_by: String,
    pub state: StopStateView,
}

/// `kind` of a script saved on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum DiskKind {
    Disk,
}

/// `kind` of a script taken from an editor buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BufferKind {
    Buffer,
}

/// Where the code came from: `{kind:"disk", path}` or `{kind:"buffer", documentId, path, version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ScriptView {
    #[serde(rename_all = "camelCase")]
    Buffer {
        document_id: String,
        kind: BufferKind,
        path: String,
        version: u64,
    },
    Disk {
        kind: DiskKind,
        path: String,
    },
}

/// A resource reference `{id, version}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResourceRefView {
    pub id: String,
    pub version: u64,
}

/// One resolved trailing argument: `{literal}` or a frozen resource copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ArgView {
    Literal {
        literal: String,
    },
    Resource {
        /// Project-relative path of the read-only copy R receives.
        path: String,
        resource: ResourceRefView,
        sha256: String,
    },
}

/// One declared package of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RequirementView {
    pub minimum_version: Option<String>,
    pub package: String,
    /// `cran` or `bioconductor`.
    pub source: String,
}

/// One declared artifact (relative to the output directory).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactView {
    pub format: String,
    pub kind: String,
    pub path: String,
}

/// The Core that runs (or ran) a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CoreView {
    pub path: String,
    pub sha256: String,
    pub version: String,
}

/// Everything frozen at acceptance, as published.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlanView {
    pub arguments: Vec<ArgView>,
    pub artifacts: Vec<ArtifactView>,
    /// `runs/<operationId>/<name>` when declared.
    pub completion: Option<String>,
    pub core: CoreView,
    /// `runs/<operationId>/artifacts`.
    pub output_directory: String,
    pub requirements: Vec<RequirementView>,
    /// `runs/<operationId>/`.
    pub run_directory: String,
    pub script: ScriptView,
    pub script_digest: String,
}

/// One captured stream's facts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogView {
    pub bytes: u64,
    /// The stream wrote more than `r.maxLogBytes` (the head is kept).
    pub truncated: bool,
}

/// Both captured streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LogsView {
    pub stderr: LogView,
    pub stdout: LogView,
}

/// One declared artifact as the run left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct InventoryView {
    pub bytes: Option<u64>,
    pub path: String,
    pub sha256: Option<String>,
}

/// The retained record of one run: the reply of `action.submit/lookup/observe/retry/cancel`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunView {
    /// RFC 3339 UTC, milliseconds.
    pub accepted_at: String,
    /// Always `r.execute`.
    pub action: String,
    /// Always `0.2.0`.
    pub action_version: String,
    pub delivery: DeliveryView,
    /// Why the last delivery attempt did not reach the Host.
    pub delivery_note: Option<String>,
    /// `null` until delivered.
    pub execution: Option<ExecutionView>,
    pub exit: Option<ExitView>,
    /// The declared artifacts as the run left them (once it ended).
    pub inventory: Option<Vec<InventoryView>>,
    pub logs: LogsView,
    /// A later Host reported the run lost with its predecessor: its execution stays `unknown`,
    /// and it no longer holds a slot.
    pub lost_with_host: bool,
    pub operation_id: String,
    pub plan: PlanView,
    pub repair_of: Option<String>,
    pub sent_at: Option<String>,
    /// A run sent to a Slurm place: the place and, once sbatch answered, the job id.
    pub slurm: Option<SlurmView>,
    pub stop: Option<StopView>,
    pub submitter: String,
    pub updated_at: String,
}

/// Where a run went on a Slurm cluster.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SlurmView {
    pub job_id: Option<String>,
    pub place: String,
}

/// `action.list`: every retained run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunListReply {
    pub runs: Vec<RunView>,
}

/// `encoding` of a log page.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PageEncoding {
    Base64,
}

/// `action.output`: one page of a captured stream.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OutputPage {
    /// The page's bytes, base64.
    pub bytes: String,
    pub encoding: PageEncoding,
    pub next_offset: u64,
    pub offset: u64,
    /// The log file's size (a missing log is empty).
    pub size: u64,
    /// The Host's flag that the stream wrote more than `r.maxLogBytes` (the head is kept).
    pub truncated: bool,
}

/// Bytes and SHA-256 of one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileFacts {
    pub bytes: u64,
    pub sha256: String,
}

/// One declared file of `artifact.check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckedFile {
    /// The file as it is now (`null`: absent or over the bound).
    pub actual: Option<FileFacts>,
    /// The file as the completion declaration names it.
    pub declared: Option<FileFacts>,
    pub matches: bool,
    pub path: String,
}

/// The completion declaration of `artifact.check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CompletionFacts {
    /// What the declaration says.
    pub complete: bool,
    pub present: bool,
    pub valid: bool,
}

/// `artifact.check`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CheckReply {
    pub complete: bool,
    pub completion: CompletionFacts,
    pub files: Vec<CheckedFile>,
    pub operation_id: String,
    pub partial: bool,
}

/// One declared file of an export.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportedFile {
    pub exported: bool,
    pub format: String,
    pub inventory_sha256: Option<String>,
    pub kind: String,
    pub matches_inventory: bool,
    pub path: String,
    /// SHA-256 of the file as it is now (`null`: absent).
    pub sha256: Option<String>,
}

/// A declared file an export left out, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct LeftOut {
    pub path: String,
    pub reason: Option<String>,
}

/// `action.export`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportReply {
    pub export_id: String,
    pub files: Vec<ExportedFile>,
    /// The project-relative folder written.
    pub folder: String,
    pub left_out: Vec<LeftOut>,
    pub operation_id: String,
    pub partial: bool,
    /// `script/<name>` of the unsaved editor text written beside the script, if included.
    pub unsaved: Option<String>,
}

/// How R ended, as a run context froze it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct FrozenExitView {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub spawn_error: Option<String>,
}

/// The last bytes of a run's stderr, as a run context froze them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct StderrTail {
    /// Where `text` starts in the log.
    pub offset: u64,
    /// Lossy UTF-8.
    pub text: String,
    /// The stream wrote more than `r.maxLogBytes` and only its head was kept.
    pub truncated: bool,
}

/// A run context (`context.create {run}`): what a run was when the context froze it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RunContextView {
    pub args: Vec<ArgView>,
    pub artifacts: Vec<ArtifactView>,
    /// `not-sent`, `sent` or `uncertain`, as it stood.
    pub delivery: String,
    /// `running`, `exited`, `unknown`, or `null` (not delivered), as it stood.
    pub execution: Option<String>,
    pub exit: Option<FrozenExitView>,
    pub operation_id: String,
    pub script: ScriptView,
    pub script_digest: String,
    pub stderr: StderrTail,
    pub stop: Option<StopView>,
}
