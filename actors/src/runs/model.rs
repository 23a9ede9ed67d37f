//! The run record of one managed `r.execute` intent: its frozen plan, delivery and execution facts.

use serde::{Deserialize, Serialize};

/// The Core that runs (or ran) a run: path, SHA-256 of the binary, version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CoreIdentity {
    pub path: String,
    pub sha256: String,
    pub version: String,
}

/// Where the code came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ScriptRef {
    Disk {
        path: String,
    },
    Buffer {
        document_id: String,
        path: String,
        version: u64,
    },
}

/// One resolved trailing argument.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResolvedArg {
    Literal(String),
    /// A frozen copy of a resource version: project-relative path of the read-only copy.
    Resource {
        id: String,
        version: u64,
        sha256: String,
        path: String,
    },
}

impl ResolvedArg {
    /// The text R receives (project-relative; R runs in the project folder).
    pub fn text(&self) -> &str {
        match self {
            ResolvedArg::Literal(s) => s,
            ResolvedArg::Resource { path, .. } => path,
        }
    }
}

/// One declared artifact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArtifactDecl {
    /// Relative to the output directory.
    pub path: String,
    pub kind: String,
    pub format: String,
}

/// Everything frozen at acceptance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunPlan {
    /// `runs/<operationId>`.
    pub run_directory: String,
    /// `runs/<operationId>/artifacts`.
    pub output_directory: String,
    /// `runs/<operationId>/<name>` when declared.
    pub completion: Option<String>,
    pub script: ScriptRef,
    /// File name the code is written under (`analysis.R`).
    pub script_name: String,
    /// The exact code.
    pub code: String,
    pub script_digest: String,
    pub args: Vec<ResolvedArg>,
    pub requirements: Vec<crate::requirements::Requirement>,
    pub artifacts: Vec<ArtifactDecl>,
    pub core: CoreIdentity,
    /// The Rscript the Host runs.
    pub rscript: String,
    /// SHA-256 of the canonical request (the Host's delivery identity).
    pub request_digest: String,
}

/// Where delivery to the Host stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Delivery {
    NotSent,
    /// Journaled before the Host is asked; settled on restart by asking the Host.
    Sending,
    Sent,
    Uncertain,
}

/// Where execution stands as far as the service knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Execution {
    /// Not delivered (yet).
    Pending,
    Running,
    Exited,
    Unknown,
    /// Unknown how it ended, and known not to be running: a later Host reported that the Host
    /// that ran it died (`lostWithHost`). Reads `unknown` on the wire. Appended last so every
    /// older encoding keeps its meaning (`docs/decisions/0320`).
    LostWithHost,
}

impl Execution {
    /// Known not to be running any more: exited, or lost with its Host.
    pub fn is_over(self) -> bool {
        matches!(self, Execution::Exited | Execution::LostWithHost)
    }
}

/// The seed's stop states.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum StopState {
    Requested,
    Signalled,
    Stopped,
    FinishedFirst,
    Unconfirmed,
}

impl StopState {
    pub fn name(self) -> &'static str {
        match self {
            StopState::Requested => "requested",
            StopState::Signalled => "signalled",
            StopState::Stopped => "stopped",
            StopState::FinishedFirst => "finished-first",
            StopState::Unconfirmed => "unconfirmed",
        }
    }
}

/// Stop facts of a cancelled run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StopFacts {
    pub state: StopState,
    pub requested_by: String,
    pub at_ms: i64,
    /// The Core's exit facts as observed when the stop was confirmed.
    pub core_exit: Option<ExitFacts>,
}

/// How R ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitFacts {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub spawn_error: Option<String>,
    pub ended_at_ms: Option<i64>,
}

/// One captured stream's facts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogFacts {
    pub bytes: u64,
    pub truncated: bool,
}

/// One declared artifact as the run left it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct InventoryEntry {
    pub path: String,
    pub bytes: Option<u64>,
    pub sha256: Option<String>,
}

/// The retained record of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunRecord {
    pub operation_id: String,
    pub submitter: String,
    pub repair_of: Option<String>,
    pub plan: RunPlan,
    pub delivery: Delivery,
    pub execution: Execution,
    pub exit: Option<ExitFacts>,
    pub stop: Option<StopFacts>,
    pub stdout: LogFacts,
    pub stderr: LogFacts,
    pub inventory: Option<Vec<InventoryEntry>>,
    /// Why the last delivery attempt did not reach the Host.
    pub delivery_note: Option<String>,
    pub accepted_at_ms: i64,
    pub sent_at_ms: Option<i64>,
    pub updated_at_ms: i64,
}

impl RunRecord {
    /// Occupies a concurrency slot: delivered or being delivered and not known to have stopped
    /// (unknown native work occupies a slot; a run lost with its Host is known not to run and
    /// does not).
    pub fn occupies_slot(&self) -> bool {
        matches!(
            self.delivery,
            Delivery::Sending | Delivery::Sent | Delivery::Uncertain
        ) && matches!(
            self.execution,
            Execution::Pending | Execution::Running | Execution::Unknown
        )
    }

    /// Failed (non-zero exit, signal, could not start) or unknown (lost with its Host or not):
    /// what `repairOf` may name.
    pub fn repairable(&self) -> bool {
        match self.execution {
            Execution::Unknown | Execution::LostWithHost => true,
            Execution::Exited => self.exit.as_ref().is_some_and(|e| e.exit_code != Some(0)),
            _ => self.delivery == Delivery::Uncertain,
        }
    }
}
