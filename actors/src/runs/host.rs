//! Talking to a project's Core Host (blocking; run on blocking threads): deliver, look up, wait,
//! cancel, and which Hosts a service started (only those are stopped at its shutdown).

use super::entity::Observation;
use super::model::*;
use rho_kernels::host::client::{self, HostClientError};
use rho_kernels::host::proto::{self, HostErrorCode, HostRecord, HostReply, HostRequest, RunState};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Bound of one request to a Host (seed: Core observation 20 s).
pub const REQUEST_TIMEOUT: Duration = Duration::from_secs(20);
/// Bound of starting a Host.
pub const START_TIMEOUT: Duration = Duration::from_secs(20);
/// One long poll of `Wait`.
pub const WAIT_POLL: Duration = Duration::from_secs(30);

/// The Hosts one service started, by project folder -> pid (a clone is the same set): only
/// those are stopped at that service's shutdown.
#[derive(Debug, Clone, Default)]
pub struct OwnedHosts(Arc<Mutex<BTreeMap<PathBuf, u32>>>);

impl OwnedHosts {
    /// Hosts this service started and that may still run.
    pub fn list(&self) -> Vec<(PathBuf, u32)> {
        self.0
            .lock()
            .map(|m| m.iter().map(|(p, pid)| (p.clone(), *pid)).collect())
            .unwrap_or_default()
    }
}

/// What the Host said about one run.
#[derive(Debug)]
pub enum HostAnswer {
    Record(Box<HostRecord>),
    /// The Host holds no record of it.
    NotFound,
    /// The Host refused the request (never delivered).
    Refused(String),
    /// No Host serves the project: certainly not delivered.
    NoHost(String),
    /// Maybe delivered; no reply.
    Lost(String),
}

fn answer(res: Result<HostReply, HostClientError>) -> HostAnswer {
    match res {
        Ok(HostReply::Record { record }) => HostAnswer::Record(Box::new(record)),
        Ok(HostReply::Error {
            code: HostErrorCode::NotFound,
            ..
        }) => HostAnswer::NotFound,
        Ok(HostReply::Error { code, message }) => {
            HostAnswer::Refused(format!("{code:?}: {message}"))
        }
        Ok(other) => HostAnswer::Lost(format!("unexpected reply {other:?}")),
        Err(e) if e.is_uncertain() => HostAnswer::Lost(e.to_string()),
        Err(e) => HostAnswer::NoHost(e.to_string()),
    }
}

/// Asks the project's Host, never starting one.
pub fn ask(project: &Path, request: &HostRequest, timeout: Duration) -> HostAnswer {
    answer(client::request(project, request, timeout))
}

/// Starts the project's Host if none answers (remembering it in `owned`), then delivers `spec`.
pub fn deliver(
    core: &Path,
    project: &Path,
    spec: proto::RunSpec,
    owned: &OwnedHosts,
) -> HostAnswer {
    match client::start(core, project, START_TIMEOUT) {
        Ok(started) => {
            if started.owned {
                if let Ok(mut m) = owned.0.lock() {
                    m.insert(project.to_path_buf(), started.pid);
                }
            }
        }
        Err(e) => return HostAnswer::NoHost(format!("the Core Host could not be started: {e}")),
    }
    ask(
        project,
        &HostRequest::Submit(Box::new(spec)),
        REQUEST_TIMEOUT,
    )
}

/// Stops one Host this service started (one of `owned`): its running runs get stop facts
/// naming `shutdown`.
pub fn shutdown(project: &Path, owned: &OwnedHosts) -> Result<Vec<HostRecord>, String> {
    let res = client::request(
        project,
        &HostRequest::Shutdown {
            requested_by: "shutdown".into(),
        },
        REQUEST_TIMEOUT + Duration::from_secs(10),
    );
    if let Ok(mut m) = owned.0.lock() {
        m.remove(project);
    }
    match res {
        Ok(HostReply::Records { records }) => Ok(records),
        Ok(HostReply::Record { record }) => Ok(vec![record]),
        Ok(other) => Err(format!("unexpected reply {other:?}")),
        Err(e) => Err(e.to_string()),
    }
}

fn stop_state(s: proto::StopState) -> StopState {
    match s {
        proto::StopState::Requested => StopState::Requested,
        proto::StopState::Signalled => StopState::Signalled,
        proto::StopState::Stopped => StopState::Stopped,
        proto::StopState::FinishedFirst => StopState::FinishedFirst,
        proto::StopState::Unconfirmed => StopState::Unconfirmed,
    }
}

/// The service's view of a Host record. A record a later Host marked `lostWithHost` says only
/// that the run no longer runs: its execution is [`Execution::LostWithHost`] with no exit facts.
pub fn observation(r: &HostRecord) -> Observation {
    let lost = r.lost_with_host;
    let ended = !lost && matches!(r.state, RunState::Exited | RunState::FailedToStart);
    let exit = ended.then(|| ExitFacts {
        exit_code: r.exit_code,
        signal: r.signal,
        spawn_error: r.spawn_error.clone(),
        ended_at_ms: r.ended_at_ms,
    });
    Observation {
        execution: if lost {
            Execution::LostWithHost
        } else if ended {
            Execution::Exited
        } else {
            Execution::Running
        },
        stop: r.stop.as_ref().map(|s| StopFacts {
            state: stop_state(s.state),
            requested_by: s.requested_by.clone(),
            at_ms: s.at_ms,
            core_exit: exit.clone(),
        }),
        exit,
        stdout: LogFacts {
            bytes: r.stdout.bytes,
            truncated: r.stdout.truncated,
        },
        stderr: LogFacts {
            bytes: r.stderr.bytes,
            truncated: r.stderr.truncated,
        },
        inventory: r.inventory.as_ref().map(|inv| {
            inv.iter()
                .map(|e| InventoryEntry {
                    path: e.path.clone(),
                    bytes: e.bytes,
                    sha256: e.sha256.clone(),
                })
                .collect()
        }),
    }
}

/// The Host's run specification of a frozen plan.
pub fn spec(
    project: &Path,
    operation_id: &str,
    plan: &RunPlan,
    limits: &crate::limits::RLimits,
) -> proto::RunSpec {
    proto::RunSpec {
        operation_id: operation_id.to_string(),
        request_digest: plan.request_digest.clone(),
        rscript: PathBuf::from(&plan.rscript),
        script_name: plan.script_name.clone(),
        script: plan.code.clone(),
        run_directory: project.join(&plan.run_directory),
        output_directory: project.join(&plan.output_directory),
        args: super::freeze::arg_texts(&plan.args),
        working_directory: project.to_path_buf(),
        library: crate::requirements::handlers::library(project),
        artifacts: plan.artifacts.iter().map(|a| a.path.clone()).collect(),
        max_log_bytes: limits.max_log_bytes,
        stop_grace_ms: limits.stop_grace_ms,
    }
}
