//! Starting a command's guard (this executable re-run as `core console-guard`) and signalling a
//! command's process group, each checked against the recorded start time (never a reused pid).

use super::entity::{Ended, Started};
use crate::error::ActorError;
use crate::limits::ConsoleLimits;
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use rho_kernels::console::{files, start};
use std::io::Read;
use std::os::fd::AsFd;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// How long the guard may take to report the command started.
const START_WAIT: Duration = Duration::from_secs(10);

/// Told when a guard this service started has ended (its exit record is then written).
pub(crate) type GuardEnded = Arc<tokio::sync::Notify>;

/// What a guard reported after go: its start, and its end when the command ended at once (or
/// only the end, when the guard could not start the command).
pub(crate) struct Launch {
    pub started: Option<Started>,
    pub ended: Option<Ended>,
}

/// A guard started ahead of its command's record: ready, waiting for go on its stdin.
pub(crate) struct Prepared {
    child: std::process::Child,
    go: Option<std::process::ChildStdin>,
}

/// Starts the guard for a command whose record folder `dir` was just created; it gets ready
/// (exec, its own session, its output file) while the record is made durable, and runs the
/// command only at [`Prepared::go`].
pub(crate) fn prepare_guard(
    dir: &Path,
    cwd: &Path,
    text: &str,
    limits: &ConsoleLimits,
) -> Result<Prepared, ActorError> {
    let exe = std::env::current_exe()
        .map_err(|e| ActorError::unavailable(format!("cannot locate this executable: {e}")))?;
    let bounds = start::Bounds {
        head: limits.max_output_bytes,
        tail: limits.tail_bytes,
    };
    let mut child = start::spawn_guard(&exe, dir, cwd, text, bounds)
        .map_err(|e| ActorError::unavailable(format!("cannot start the console guard: {e}")))?;
    let go = child.stdin.take();
    Ok(Prepared { child, go })
}

impl Prepared {
    /// The command's record is durable: the guard starts it. Waits for the byte the guard writes
    /// once its guard record is written (and the exit record, when the command ended within the
    /// guard's few ms of hold; or for its pipe to close, when it failed). Answers what the files
    /// say: the start, the end, or both.
    pub(crate) fn go(mut self, dir: &Path) -> Result<(Launch, GuardEnded), ActorError> {
        if let Some(mut go) = self.go.take() {
            use std::io::Write;
            let _ = go.write_all(b"g");
        }
        let mut child = self.child;
        if let Some(mut pipe) = child.stdout.take() {
            let mut fds = [PollFd::new(pipe.as_fd(), PollFlags::POLLIN)];
            let wait = PollTimeout::try_from(START_WAIT).unwrap_or(PollTimeout::MAX);
            if matches!(poll(&mut fds, wait), Ok(n) if n > 0) {
                let _ = pipe.read(&mut [0u8; 1]);
            }
        }
        let launch = Launch {
            started: files::read_guard(dir).map(|g| started(&g)),
            ended: files::read_exit(dir).map(|e| ended(&e)),
        };
        let outcome = if launch.started.is_none() && launch.ended.is_none() {
            Err(ActorError::internal(
                "the console guard did not report a start",
            ))
        } else {
            Ok(launch)
        };
        // Reap the guard when it ends (it is our child while this service lives), and say so.
        let ended_tx: GuardEnded = Arc::default();
        let tell = ended_tx.clone();
        let _ = std::thread::Builder::new()
            .name("console-reap".into())
            .spawn(move || {
                let _ = child.wait();
                tell.notify_one();
            });
        outcome.map(|o| (o, ended_tx))
    }

    /// The record was not made (refused, or another caller's): the guard ends without running
    /// anything, is reaped, and then the folder made for it (`remove`) goes.
    pub(crate) fn cancel(mut self, remove: Option<std::path::PathBuf>) {
        drop(self.go.take());
        let mut child = self.child;
        let _ = std::thread::Builder::new()
            .name("console-reap".into())
            .spawn(move || {
                let _ = child.wait();
                if let Some(dir) = remove {
                    let _ = std::fs::remove_dir_all(dir);
                }
            });
    }
}

pub(crate) fn started(g: &files::GuardRecord) -> Started {
    Started {
        pid: g.pid,
        pid_start: g.pid_start,
        guard_pid: g.guard_pid,
        guard_start: g.guard_start,
        started_at_ms: g.started_at_ms,
    }
}

pub(crate) fn ended(e: &files::ExitRecord) -> Ended {
    Ended {
        exit_code: e.exit_code,
        signal: e.signal,
        ended_at_ms: e.ended_at_ms,
        stdout_bytes: e.stdout_bytes,
        stderr_bytes: e.stderr_bytes,
        omitted_bytes: e.omitted_bytes,
        error: e.error.clone(),
    }
}

/// Whether the command's guard is still the process that started it.
pub(crate) fn guard_alive(s: &Started) -> bool {
    files::is_same_process(s.guard_pid, s.guard_start)
}

/// Sends `signal` to the command's process group while its leader is still the command.
pub(crate) fn signal_group(s: &Started, signal: nix::sys::signal::Signal) -> bool {
    if !files::is_same_process(s.pid, s.pid_start) {
        return false;
    }
    nix::sys::signal::killpg(nix::unistd::Pid::from_raw(s.pid), signal).is_ok()
}
