//! The one bounded child runner: its own process group, bounded in wall time and captured output.
//!
//! The caller builds the [`Command`] (program, arguments, cwd, environment); [`run`] closes stdin
//! ([`run_fed`] gives it a file),
//! pipes stdout and stderr into reader threads, and puts the child in a new process group. On
//! timeout, when a stream passes its cap, or when the runner unwinds, the whole group is killed
//! (SIGKILL); what was captured is kept. Blocking: call it on a blocking thread.

use std::io::Read;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Why a bounded run ended early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    Timeout,
    OutputLimit,
}

/// What a bounded run left.
#[derive(Debug, Clone)]
pub struct Bounded {
    /// `None` when killed by a signal.
    pub exit_code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// Set when the run was stopped by a bound.
    pub cut: Option<Cut>,
    pub elapsed: Duration,
}

impl Bounded {
    /// The last `max_chars` characters of stderr as text, trimmed: what to put into an error
    /// when the child failed.
    pub fn stderr_tail(&self, max_chars: usize) -> String {
        let text = String::from_utf8_lossy(&self.stderr);
        let skip = text.chars().count().saturating_sub(max_chars);
        text.chars()
            .skip(skip)
            .collect::<String>()
            .trim()
            .to_string()
    }
}

/// The child could not be started.
#[derive(Debug, thiserror::Error)]
#[error("could not start {program}: {source}")]
pub struct SpawnError {
    pub program: String,
    #[source]
    pub source: std::io::Error,
}

fn reader(
    mut stream: impl Read + Send + 'static,
    cap: u64,
    over: Arc<AtomicBool>,
) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let room = cap.saturating_sub(kept.len() as u64) as usize;
                    kept.extend_from_slice(&buf[..n.min(room)]);
                    if n > room {
                        over.store(true, Ordering::SeqCst);
                    }
                }
            }
        }
        kept
    })
}

/// Kills the child's whole process group when dropped (also when the runner unwinds).
struct Group(u32);

impl Drop for Group {
    fn drop(&mut self) {
        if let Ok(pid) = i32::try_from(self.0) {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Runs `cmd` (stdin closed) for at most `timeout`, keeping at most `max_output` bytes of
/// stdout and stderr together (each stream at most that much; the run stops when either passes).
pub fn run(cmd: Command, timeout: Duration, max_output: u64) -> Result<Bounded, SpawnError> {
    run_fed(cmd, Stdio::null(), timeout, max_output)
}

/// [`run`] with `stdin` as the child's standard input (a file whose bytes it reads).
pub fn run_fed(
    mut cmd: Command,
    stdin: Stdio,
    timeout: Duration,
    max_output: u64,
) -> Result<Bounded, SpawnError> {
    let program = cmd.get_program().to_string_lossy().into_owned();
    cmd.stdin(stdin)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let started = Instant::now();
    let mut child = cmd
        .spawn()
        .map_err(|source| SpawnError { program, source })?;
    let group = Group(child.id());
    let over = Arc::new(AtomicBool::new(false));
    let out = child
        .stdout
        .take()
        .map(|s| reader(s, max_output, over.clone()));
    let err = child
        .stderr
        .take()
        .map(|s| reader(s, max_output, over.clone()));
    let mut cut = None;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Some(status),
            Ok(None) => {}
            Err(_) => break None,
        }
        if over.load(Ordering::SeqCst) {
            cut = Some(Cut::OutputLimit);
        } else if started.elapsed() >= timeout {
            cut = Some(Cut::Timeout);
        }
        if cut.is_some() {
            drop(Group(group.0));
            break child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if cut.is_none() && over.load(Ordering::SeqCst) {
        cut = Some(Cut::OutputLimit);
    }
    // The group may hold the pipes open after the leader ended; end it before joining readers.
    drop(group);
    let stdout = out.and_then(|h| h.join().ok()).unwrap_or_default();
    let stderr = err.and_then(|h| h.join().ok()).unwrap_or_default();
    Ok(Bounded {
        exit_code: status.and_then(|s| s.code().or(s.signal().map(|n| -n)).filter(|c| *c >= 0)),
        stdout,
        stderr,
        cut,
        elapsed: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    #[test]
    fn output_and_time_are_bounded() {
        let r = run(
            sh("echo hello; echo oops >&2; exit 3"),
            Duration::from_secs(5),
            1024,
        )
        .unwrap();
        assert_eq!(r.exit_code, Some(3));
        assert_eq!(r.stdout, b"hello\n");
        assert_eq!(r.stderr, b"oops\n");
        assert_eq!(r.stderr_tail(4), "ops");
        assert_eq!(r.cut, None);

        let r = run(sh("sleep 30"), Duration::from_millis(200), 1024).unwrap();
        assert_eq!(r.cut, Some(Cut::Timeout));
        assert!(r.elapsed < Duration::from_secs(5));

        let r = run(
            sh("yes | head -c 100000; sleep 30"),
            Duration::from_secs(20),
            1000,
        )
        .unwrap();
        assert_eq!(r.cut, Some(Cut::OutputLimit));
        assert_eq!(r.stdout.len(), 1000);
        assert!(r.elapsed < Duration::from_secs(10));

        let missing = run(
            Command::new("/nonexistent/Rscript"),
            Duration::from_secs(1),
            10,
        );
        assert!(missing.is_err());
    }

    #[test]
    fn the_whole_group_is_killed_and_cwd_env_are_the_callers() {
        let d = tempfile::tempdir().unwrap();
        // A grandchild that would outlive its parent keeps the pipes open: killing the group ends it.
        let mut c = sh("echo \"$PWD $RHO_PLUMBING_T\"; (sleep 30 &) ; sleep 30");
        c.current_dir(d.path()).env("RHO_PLUMBING_T", "set");
        let r = run(c, Duration::from_millis(300), 1024).unwrap();
        assert_eq!(r.cut, Some(Cut::Timeout));
        assert!(r.elapsed < Duration::from_secs(10), "{:?}", r.elapsed);
        let out = String::from_utf8_lossy(&r.stdout);
        assert!(out.trim_end().ends_with(" set"), "{out}");
        let real = d.path().canonicalize().unwrap();
        assert!(
            out.starts_with(&*real.to_string_lossy())
                || out.starts_with(&*d.path().to_string_lossy()),
            "{out}"
        );
    }
}
