//! How a session's supervisor reaches its runner: command lines in, signals to its process
//! group, and a hard end. Here on this machine (a pipe and `killpg`); `crate::remote` has the
//! link to a runner on a server or in a Slurm allocation.

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use std::fs::File;
use std::io::Write;
use std::process::ChildStdin;
use std::sync::Mutex;

/// The supervisor's side of one runner.
pub(crate) trait Link: Send + Sync {
    /// Writes one command line (it ends in `\n`).
    fn send(&self, line: &[u8]) -> std::io::Result<()>;
    /// Sends `signal` to the runner's whole process group (bounded in time for a remote one).
    fn signal(&self, signal: Signal) -> std::io::Result<()>;
    /// Ends the runner and everything it started, now; never blocks for long.
    fn kill(&self);
    /// The process id the records show (the group's leader where it runs).
    fn pid(&self) -> u32;
}

/// A runner on this machine under the guard: its command pipe and its process group.
pub(crate) struct LocalLink {
    pub(crate) pgid: Pid,
    pub(crate) commands: Mutex<File>,
    /// Held for the session's life: the guard kills the group when it closes.
    pub(crate) _guard_stdin: Mutex<Option<ChildStdin>>,
}

impl Link for LocalLink {
    fn send(&self, line: &[u8]) -> std::io::Result<()> {
        let mut pipe = self.commands.lock().unwrap_or_else(|p| p.into_inner());
        pipe.write_all(line)?;
        pipe.flush()
    }

    fn signal(&self, signal: Signal) -> std::io::Result<()> {
        killpg(self.pgid, signal).map_err(std::io::Error::from)
    }

    fn kill(&self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
    }

    fn pid(&self) -> u32 {
        self.pgid.as_raw().unsigned_abs()
    }
}
