//! Where a place's short POSIX sh scripts run (listing, copying): the place's own ssh, or
//! `serverctl exec` on a server (docs/serverctl.md); each names its own failures. The scripts'
//! own exit codes are 83 and up, clear of ssh's 255 and serverctl's 2-5 and 124.

use super::serverctl::Serverctl;
use super::ssh::SshPlace;
use super::PlaceError;
use std::process::Command;
use std::time::Duration;

/// The script found no such file or folder.
pub const MISSING: i32 = 83;
/// The script found something that is not what it needs (a folder for a file).
pub const WRONG_KIND: i32 = 84;

/// A place that runs a script and says what a failed run means.
pub trait Shell: Send + Sync {
    /// Makes what the command needs on this machine (ssh's control folder).
    fn ready(&self) -> Result<(), PlaceError>;
    /// The command that runs `script` there within `timeout`.
    fn script(&self, script: &str, timeout: Duration) -> Command;
    /// What an exit other than the script's own means (stderr: what was printed).
    fn failure(&self, stderr: &[u8], code: Option<i32>) -> PlaceError;
    /// The command could not be started.
    fn spawn_failed(&self, why: String) -> PlaceError;
}

impl Shell for SshPlace {
    fn ready(&self) -> Result<(), PlaceError> {
        self.prepare().map_err(|e| PlaceError::Spawn(e.to_string()))
    }

    fn script(&self, script: &str, timeout: Duration) -> Command {
        self.command(script, timeout)
    }

    fn failure(&self, stderr: &[u8], code: Option<i32>) -> PlaceError {
        PlaceError::from_exit(stderr, code)
    }

    fn spawn_failed(&self, why: String) -> PlaceError {
        PlaceError::Spawn(why)
    }
}

/// A server the person's serverctl manages: scripts run under `serverctl exec`, each ended by
/// serverctl after the operation's own bound (`--max-seconds`) as well as by Rho.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerShell {
    pub serverctl: Serverctl,
    pub server: String,
}

impl Shell for ServerShell {
    fn ready(&self) -> Result<(), PlaceError> {
        Ok(())
    }

    fn script(&self, script: &str, timeout: Duration) -> Command {
        let secs = timeout.as_secs() + u64::from(timeout.subsec_nanos() > 0);
        self.serverctl
            .exec(&self.server, secs.max(1), &["sh", "-c", script])
    }

    fn failure(&self, stderr: &[u8], code: Option<i32>) -> PlaceError {
        let said = String::from_utf8_lossy(stderr);
        let said: Vec<&str> = said.lines().filter(|l| !l.trim().is_empty()).collect();
        let said = said[said.len().saturating_sub(4)..].join("; ");
        let server = &self.server;
        match code {
            Some(3) => PlaceError::NotFound(format!("no server {server} in serverctl's registry")),
            Some(5) => PlaceError::Connect(format!("serverctl cannot reach {server} now: {said}")),
            Some(2) => PlaceError::Remote(format!(
                "this serverctl does not know `exec` as docs/serverctl.md defines it: {said}"
            )),
            Some(124) => PlaceError::Remote(format!(
                "serverctl ended the command at its own limit for one command: {said}"
            )),
            Some(c) => {
                PlaceError::Remote(format!("the command on {server} failed (exit {c}): {said}"))
            }
            None => PlaceError::Remote("serverctl was killed".into()),
        }
    }

    fn spawn_failed(&self, why: String) -> PlaceError {
        PlaceError::Remote(format!(
            "{} could not be started ({why}): install serverctl or name it with --serverctl (RHO_SERVERCTL)",
            self.serverctl.program.display()
        ))
    }
}
