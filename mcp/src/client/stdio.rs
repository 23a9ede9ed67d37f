//! Starting a stdio server in its own process group with a sanitized environment, and
//! stopping it: close stdin, wait, SIGTERM the group, wait, SIGKILL the group.

use std::collections::VecDeque;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::client::config::StdioConfig;
use crate::client::env::{redact, ChildEnv};

/// How many trailing stderr lines are kept for error messages.
const STDERR_TAIL_LINES: usize = 8;

/// The executable could not be started.
#[derive(Debug, thiserror::Error)]
#[error("cannot start `{command}`: {source}")]
pub struct SpawnError {
    /// The configured command.
    pub command: String,
    /// The OS error.
    pub source: std::io::Error,
}

/// A running stdio server process (the leader of its own process group).
#[derive(Debug)]
pub struct StdioChild {
    child: Child,
    pgid: Option<Pid>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
}

/// Spawns the server: no shell, args as separate arguments, bare names found on the child's
/// PATH, its own process group, stdin/stdout piped for the protocol, stderr captured.
pub fn spawn(
    server_id: &str,
    cfg: &StdioConfig,
    env: &ChildEnv,
) -> Result<(StdioChild, ChildStdout, ChildStdin), SpawnError> {
    let mut cmd = Command::new(&cfg.command);
    cmd.args(&cfg.args)
        .env_clear()
        .envs(&env.vars)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = &cfg.cwd {
        cmd.current_dir(PathBuf::from(cwd));
    }
    let mut child = cmd.spawn().map_err(|source| SpawnError {
        command: cfg.command.clone(),
        source,
    })?;
    let pgid = child
        .id()
        .and_then(|p| i32::try_from(p).ok())
        .map(Pid::from_raw);
    let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
        return Err(SpawnError {
            command: cfg.command.clone(),
            source: std::io::Error::other("stdio pipes missing"),
        });
    };
    let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
    if let Some(stderr) = child.stderr.take() {
        let tail = Arc::clone(&stderr_tail);
        let secrets = env.secrets.clone();
        let id = server_id.to_owned();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let line = redact(&line, &secrets);
                tracing::debug!(target: "rho::mcp::server", server = %id, stderr = %line);
                let mut t = tail.lock().unwrap_or_else(PoisonError::into_inner);
                if t.len() == STDERR_TAIL_LINES {
                    t.pop_front();
                }
                t.push_back(line);
            }
        });
    }
    Ok((
        StdioChild {
            child,
            pgid,
            stderr_tail,
        },
        stdout,
        stdin,
    ))
}

impl StdioChild {
    /// The process group id (the leader's pid).
    pub fn pgid(&self) -> Option<i32> {
        self.pgid.map(Pid::as_raw)
    }

    /// The last lines the server wrote to stderr (secrets redacted), oldest first.
    pub fn stderr_tail(&self) -> String {
        let t = self
            .stderr_tail
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        t.iter().cloned().collect::<Vec<_>>().join("\n")
    }

    /// Whether the leader has exited (and its status, reaped).
    pub fn try_exited(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Stops the server after its stdin has been closed by the caller: waits `grace` for a
    /// clean exit, then SIGTERMs the whole group, waits `grace`, then SIGKILLs the group.
    pub async fn shutdown(mut self, grace: Duration) {
        let _ = tokio::time::timeout(grace, self.child.wait()).await;
        let Some(pgid) = self.pgid.take() else {
            return;
        };
        if group_alive(pgid, &mut self.child) {
            let _ = killpg(pgid, Signal::SIGTERM);
            let deadline = tokio::time::Instant::now() + grace;
            while group_alive(pgid, &mut self.child) && tokio::time::Instant::now() < deadline {
                tokio::time::sleep(Duration::from_millis(25)).await;
            }
            if group_alive(pgid, &mut self.child) {
                tracing::warn!(target: "rho::mcp", "stdio server group did not exit after SIGTERM; killing it");
                let _ = killpg(pgid, Signal::SIGKILL);
            }
        }
        let _ = tokio::time::timeout(grace, self.child.wait()).await;
    }
}

fn group_alive(pgid: Pid, leader: &mut Child) -> bool {
    // Reap the leader if it exited so a zombie does not count as alive.
    let _ = leader.try_wait();
    killpg(pgid, None).is_ok()
}

impl Drop for StdioChild {
    fn drop(&mut self) {
        // A child dropped without `shutdown` (a panic elsewhere, a dropped future): never leave
        // the group behind.
        if let Some(pgid) = self.pgid.take() {
            let _ = killpg(pgid, Signal::SIGKILL);
        }
    }
}
