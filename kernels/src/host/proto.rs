//! The Host wire protocol: one JSON request line and one JSON reply line per connection on
//! `<project>/.rho/host.sock`. The service and the Core CLI are its only clients.

use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Bumped when a request or reply changes shape; `Ping` reports it.
pub const PROTOCOL_VERSION: u32 = 1;

/// One request to a project's Host.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum HostRequest {
    /// Is a Host serving this project? Answers [`HostReply::Pong`].
    Ping,
    /// Deliver a run. The Host fsyncs its own record for `operationId` before it spawns R; a
    /// repeated delivery of the same id answers that record (a different `requestDigest` is
    /// refused with [`HostErrorCode::Conflict`]).
    Submit(Box<RunSpec>),
    /// The record of one run ([`HostErrorCode::NotFound`] when the Host never recorded it).
    Lookup { operation_id: String },
    /// Like `Lookup`, but answers only once the run is no longer running or `timeoutMs` passed.
    Wait {
        operation_id: String,
        timeout_ms: u64,
    },
    /// SIGTERM to the run's process group, SIGKILL after the run's `stopGraceMs`; answers the
    /// record with its stop facts as they stand when the signal was sent.
    Cancel {
        operation_id: String,
        requested_by: String,
    },
    /// Every record this Host holds.
    List,
    /// Stop every running run (stop facts name `requestedBy`), wait for them to end, answer
    /// their records, then exit.
    Shutdown { requested_by: String },
}

/// Everything the Host needs to run one script; frozen by the service before delivery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunSpec {
    pub operation_id: String,
    /// SHA-256 hex of the service's frozen request (identity of "the same delivery").
    pub request_digest: String,
    /// The Rscript to run.
    pub rscript: PathBuf,
    /// File name the frozen code is written under in the Host's record folder (e.g. `analysis.R`).
    pub script_name: String,
    /// The exact code that runs.
    pub script: String,
    /// Absolute `<project>/runs/<operationId>`; the Host creates it (not its `artifacts`).
    pub run_directory: PathBuf,
    /// Absolute `<run_directory>/artifacts`: R's first trailing argument; the script creates it.
    pub output_directory: PathBuf,
    /// Further trailing arguments, in order (literals or resolved frozen-copy paths).
    pub args: Vec<String>,
    /// R's working directory (the project folder).
    pub working_directory: PathBuf,
    /// The project library, first on `R_LIBS`.
    pub library: PathBuf,
    /// Declared artifact paths, relative to the output directory, for the inventory.
    pub artifacts: Vec<String>,
    /// Cap per stream; the head is kept and truncation flagged.
    pub max_log_bytes: u64,
    /// Grace between SIGTERM and SIGKILL on cancel.
    pub stop_grace_ms: u64,
}

/// One reply line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "reply",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum HostReply {
    Pong {
        pid: u32,
        protocol: u32,
        core_version: String,
        started_at_ms: i64,
    },
    Record {
        record: HostRecord,
    },
    Records {
        records: Vec<HostRecord>,
    },
    Error {
        code: HostErrorCode,
        message: String,
    },
}

/// Why the Host refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum HostErrorCode {
    Invalid,
    NotFound,
    Conflict,
    ShuttingDown,
    Internal,
}

/// The Host's own durable record of one run (`<project>/.rho/host/<operationId>/record.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostRecord {
    pub operation_id: String,
    pub request_digest: String,
    pub state: RunState,
    /// The run's process group id: the pid of the guard that leads the group (R is its child;
    /// see `rho_kernels::guard`); `None` before spawn or when spawn failed.
    pub pid: Option<u32>,
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    /// Why R could not be started, when `state` is `failedToStart`.
    pub spawn_error: Option<String>,
    pub recorded_at_ms: i64,
    pub started_at_ms: Option<i64>,
    pub ended_at_ms: Option<i64>,
    pub stdout: LogFacts,
    pub stderr: LogFacts,
    pub stop: Option<HostStop>,
    /// Written at run end: each declared artifact as found (`None` = not written).
    pub inventory: Option<Vec<InventoryEntry>>,
    /// The Host that ran this died before it could observe the end: a later Host found the
    /// record `recorded`/`running` and marked it `exited` with no exit code, signal or end time
    /// (R's process group died with its Host). Never re-run.
    #[serde(default)]
    pub lost_with_host: bool,
}

/// Where a run stands in the Host.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum RunState {
    /// Recorded (fsynced), R not yet spawned.
    Recorded,
    Running,
    Exited,
    FailedToStart,
}

/// One captured stream.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogFacts {
    /// Bytes kept in the log file.
    pub bytes: u64,
    /// The stream wrote more than `maxLogBytes`; the head was kept.
    pub truncated: bool,
}

/// Stop facts of a cancelled run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostStop {
    pub state: StopState,
    pub requested_by: String,
    pub at_ms: i64,
}

/// The seed's stop states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum StopState {
    Requested,
    Signalled,
    Stopped,
    FinishedFirst,
    Unconfirmed,
}

/// One declared artifact at run end.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InventoryEntry {
    /// Relative to the output directory.
    pub path: String,
    /// `None` when the file was not written.
    pub bytes: Option<u64>,
    pub sha256: Option<String>,
}
