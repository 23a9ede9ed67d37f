//! What a Slurm job's facts mean for its run: the exit, the stop state, the logs bounded like a
//! local run's (`r.maxLogBytes`, the head kept and the cut stated) and, once it ended, the
//! declared outputs as the job left them.

use super::entity::Observation;
use super::model::*;
use rho_kernels::host::paths;
use rho_kernels::remote::slurm::JobFacts;
use std::path::Path;

/// The declared artifacts as the job left them.
fn inventory(dir: &Path, plan: &RunPlan) -> Vec<InventoryEntry> {
    use sha2::{Digest, Sha256};
    plan.artifacts
        .iter()
        .map(|a| {
            let path = dir.join(&plan.output_directory).join(&a.path);
            let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
            let data = regular.then(|| std::fs::read(&path).ok()).flatten();
            InventoryEntry {
                path: a.path.clone(),
                bytes: data.as_ref().map(|d| d.len() as u64),
                sha256: data.map(|d| rho_plumbing::hex::encode(&Sha256::digest(&d))),
            }
        })
        .collect()
}

/// A log Slurm writes into the project itself (a cluster on this machine): at most `cap`
/// bytes count, and once the job ended the file is cut to its head, as a local run's log is.
/// A marker beside it (`<log>.cut`, made before the cut) keeps the cut stated for every later
/// look (two looks at one run may read it at once).
pub(crate) fn local_log(path: &Path, cap: u64, ended: bool) -> LogFacts {
    let size = std::fs::metadata(path).map_or(0, |m| m.len());
    let mut marker = path.as_os_str().to_os_string();
    marker.push(".cut");
    let marker = std::path::PathBuf::from(marker);
    if ended && size > cap {
        let cut = std::fs::write(&marker, b"").and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(path)
                .and_then(|f| f.set_len(cap))
        });
        if let Err(e) = cut {
            tracing::warn!(path = %path.display(), error = %e, "a Slurm log could not be cut to r.maxLogBytes");
        }
    }
    LogFacts {
        bytes: size.min(cap),
        truncated: size > cap || marker.exists(),
    }
}

/// The logs of a run on a cluster on this machine.
pub(crate) fn local_logs(dir: &Path, op: &str, cap: u64, ended: bool) -> (LogFacts, LogFacts) {
    (
        local_log(&paths::stdout_path(dir, op), cap, ended),
        local_log(&paths::stderr_path(dir, op), cap, ended),
    )
}

/// What a job's facts mean for the run (`stop`: the run's stop facts so far; `logs`: its
/// stdout and stderr as read).
pub(crate) fn observation(
    dir: &Path,
    plan: &RunPlan,
    f: &JobFacts,
    stop: Option<&StopFacts>,
    logs: (LogFacts, LogFacts),
) -> Observation {
    let ended = f.ended();
    let exit = ended.then(|| ExitFacts {
        exit_code: if f.signal.is_some() {
            None
        } else {
            f.exit_code
        },
        signal: f.signal,
        spawn_error: (!matches!(f.state.as_str(), "COMPLETED" | "FAILED" | "CANCELLED"))
            .then(|| format!("Slurm ended the job {}: {}", f.job_id, f.state)),
        ended_at_ms: Some(rho_plumbing::time::now_ms()),
    });
    Observation {
        execution: if ended {
            Execution::Exited
        } else {
            Execution::Running
        },
        exit: exit.clone(),
        stop: stop.map(|s| StopFacts {
            state: match (ended, f.state.as_str()) {
                (true, "CANCELLED") => StopState::Stopped,
                (true, _) => StopState::FinishedFirst,
                (false, _) => StopState::Signalled,
            },
            requested_by: s.requested_by.clone(),
            at_ms: s.at_ms,
            core_exit: exit,
        }),
        stdout: logs.0,
        stderr: logs.1,
        inventory: ended.then(|| inventory(dir, plan)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_local_log_counts_its_head_and_is_cut_once_the_job_ended() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("stdout.log");
        std::fs::write(&p, b"0123456789").unwrap();
        let running = local_log(&p, 4, false);
        assert_eq!((running.bytes, running.truncated), (4, true));
        assert_eq!(std::fs::metadata(&p).unwrap().len(), 10);
        let ended = local_log(&p, 4, true);
        assert_eq!((ended.bytes, ended.truncated), (4, true));
        assert_eq!(std::fs::read(&p).unwrap(), b"0123");
        let again = local_log(&p, 4, true);
        assert_eq!(
            (again.bytes, again.truncated),
            (4, true),
            "the cut stays stated"
        );
        let q = d.path().join("stderr.log");
        std::fs::write(&q, b"0123").unwrap();
        let small = local_log(&q, 100, true);
        assert_eq!((small.bytes, small.truncated), (4, false));
    }
}
