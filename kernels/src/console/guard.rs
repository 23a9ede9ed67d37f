//! The Console's guard (`rho core console-guard`): a detached process that runs one shell command,
//! owns its pipes and writes its output and end to files, so the command outlives the service.
//!
//! The guard starts its own session (so neither the service's death nor a signal to the
//! service's group reaches it), runs `$SHELL -c TEXT` (fallback `/bin/sh`) as the leader of a
//! process group of its own (what `console.stop` signals), and writes the chunks of stdout and
//! stderr in the order it reads them (one thread polling both pipes): the first `head` bytes to
//! `output`, then the last `tail` bytes to `tail` ([`Keeper`]), then its exit record. See
//! `files.rs` for the formats and decisions 0602, 0604, 0605, 0607.

use super::files::{self, ExitRecord, GuardRecord, STDERR, STDOUT};
use super::keeper::Keeper;
use nix::fcntl::{fcntl, FcntlArg, OFlag};
use nix::poll::{poll, PollFd, PollFlags, PollTimeout};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// What the guard runs and where it writes.
#[derive(Debug, Clone, clap::Args)]
pub struct GuardArgs {
    /// The command's record folder (created by the service).
    #[arg(long, value_name = "DIR")]
    pub record: PathBuf,
    /// The folder the command runs in.
    #[arg(long, value_name = "DIR")]
    pub cwd: PathBuf,
    /// Bytes of output kept from the start.
    #[arg(long, value_name = "BYTES")]
    pub head: u64,
    /// Bytes kept from the end once the head is full.
    #[arg(long, value_name = "BYTES")]
    pub tail: u64,
    /// Write one byte to stdout once `guard.json` is written and the command ended (`exit.json`
    /// written too) or a few ms passed, then let stdout go.
    #[arg(long)]
    pub notify: bool,
    /// Get ready, then wait for one byte on stdin (a pipe from the service) before starting the
    /// command: the service says go once the command's record is durable, so the guard's own
    /// start overlaps that write. End of input instead: the command is not started.
    #[arg(long)]
    pub wait_go: bool,
    /// The command text, given to the shell's `-c`.
    #[arg(last = true, required = true, value_name = "TEXT")]
    pub text: String,
}

/// How long output is still drained after the command ended (a background child may hold the
/// pipes open).
const DRAIN: Duration = Duration::from_millis(500);
/// How long the start is held back for the command's end: a command that ends within it is
/// told with its end, so the service journals both in one write (decision 0608).
const START_HOLD: Duration = Duration::from_millis(5);

/// The one byte that tells the service `guard.json` (and, when the command ended within
/// [`START_HOLD`], `exit.json`) is written; then stdout is let go.
fn notify_now() {
    let mut stdout = std::io::stdout();
    let _ = stdout.write_all(b"s").and_then(|()| stdout.flush());
    if let Ok(null) = File::options().write(true).open("/dev/null") {
        let _ = nix::unistd::dup2_stdout(null.as_fd());
    }
}
/// How often the guard looks whether the command ended while its pipes stay open.
const WAIT_EVERY: Duration = Duration::from_millis(100);

/// Reads both pipes in one thread as `poll` reports them readable, stdout always first (so bytes
/// written to stdout before stderr come first; two pipes cannot tell more, decision 0605), until
/// both closed (or the drain after the command's end ran out); answers how the command ended.
fn pump(child: &mut Child, keep: &mut Keeper, notify: &mut Option<Instant>) -> Option<ExitStatus> {
    let mut pipes: Vec<(u8, Option<File>)> = Vec::new();
    if let Some(p) = child.stdout.take() {
        pipes.push((STDOUT, Some(File::from(OwnedFd::from(p)))));
    }
    if let Some(p) = child.stderr.take() {
        pipes.push((STDERR, Some(File::from(OwnedFd::from(p)))));
    }
    for (_, f) in &pipes {
        if let Some(f) = f {
            let _ = fcntl(f, FcntlArg::F_SETFL(OFlag::O_NONBLOCK));
        }
    }
    let mut buf = vec![0u8; 256 * 1024];
    let mut status = None;
    let mut drain_until: Option<Instant> = None;
    let mut waited = Instant::now();
    loop {
        let open: Vec<usize> = (0..pipes.len()).filter(|i| pipes[*i].1.is_some()).collect();
        if open.is_empty() || drain_until.is_some_and(|t| Instant::now() >= t) {
            break;
        }
        if notify.is_some_and(|t| Instant::now() >= t) {
            notify_now();
            *notify = None;
        }
        let mut wait = match drain_until {
            Some(t) => t.saturating_duration_since(Instant::now()),
            None => WAIT_EVERY,
        };
        if let Some(t) = *notify {
            wait = wait.min(t.saturating_duration_since(Instant::now()));
        }
        let timeout = PollTimeout::try_from(wait).unwrap_or(PollTimeout::MAX);
        let ready: Vec<usize> = {
            let mut fds: Vec<PollFd> = open
                .iter()
                .filter_map(|i| pipes[*i].1.as_ref())
                .map(|f| PollFd::new(f.as_fd(), PollFlags::POLLIN))
                .collect();
            match poll(&mut fds, timeout) {
                Ok(_) => {}
                Err(nix::errno::Errno::EINTR) => continue,
                Err(_) => break,
            }
            let mut ready = Vec::new();
            for (i, fd) in open.iter().zip(fds.iter()) {
                if fd.revents().is_some_and(|r| !r.is_empty()) {
                    ready.push(*i);
                }
            }
            ready
        };
        // One thread reads both, so a chunk is kept in the order it was read; stdout is read
        // first whenever anything is ready (the pipes do not block: an empty one just says so).
        let any = !ready.is_empty();
        for (i, (stream, pipe)) in pipes.iter_mut().enumerate() {
            if !ready.contains(&i) && (*stream != STDOUT || !any) {
                continue;
            }
            let Some(f) = pipe.as_mut() else { continue };
            match f.read(&mut buf) {
                Ok(0) => *pipe = None,
                Ok(n) => {
                    if let Err(e) = keep.add(*stream, &buf[..n]) {
                        eprintln!("rho core console-guard: writing output failed: {e}");
                    }
                }
                Err(e)
                    if matches!(
                        e.kind(),
                        std::io::ErrorKind::Interrupted | std::io::ErrorKind::WouldBlock
                    ) => {}
                Err(_) => *pipe = None,
            }
        }
        if let Err(e) = keep.flush(false) {
            eprintln!("rho core console-guard: writing output failed: {e}");
        }
        if status.is_none() && waited.elapsed() >= WAIT_EVERY {
            waited = Instant::now();
            if let Ok(Some(s)) = child.try_wait() {
                status = Some(s);
                drain_until = Some(Instant::now() + DRAIN);
            }
        }
    }
    status.or_else(|| child.wait().ok())
}

/// Waits for the service's go: one byte on stdin. False: its end came first (the service
/// went away, or its record was refused).
fn go() -> bool {
    let mut byte = [0u8; 1];
    loop {
        match std::io::stdin().read(&mut byte) {
            Ok(1) => return true,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            _ => return false,
        }
    }
}

/// The service never said go: the command did not run, and the exit record says so.
fn not_started(dir: &Path) -> ExitCode {
    let record = ExitRecord {
        exit_code: None,
        signal: None,
        ended_at_ms: rho_plumbing::time::now_ms(),
        stdout_bytes: 0,
        stderr_bytes: 0,
        omitted_bytes: 0,
        error: Some(
            "not started: the service did not say go (it ended, or refused the record)".into(),
        ),
    };
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    match files::write_replace(&files::exit_path(dir), &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::from(2),
    }
}

fn fail_record(dir: &Path, why: String) -> ExitCode {
    eprintln!("rho core console-guard: {why}");
    let record = ExitRecord {
        exit_code: Some(127),
        signal: None,
        ended_at_ms: rho_plumbing::time::now_ms(),
        stdout_bytes: 0,
        stderr_bytes: 0,
        omitted_bytes: 0,
        error: Some(why),
    };
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    match files::write_replace(&files::exit_path(dir), &bytes) {
        Ok(()) => ExitCode::from(1),
        Err(_) => ExitCode::from(2),
    }
}

/// Runs the guard to the command's end; the exit code says only whether the guard did its job.
pub fn run(args: GuardArgs) -> ExitCode {
    let dir = args.record.clone();
    // Leave the service's session and process group: the command must outlive the service.
    if let Err(e) = nix::unistd::setsid() {
        return fail_record(&dir, format!("cannot start a session of its own: {e}"));
    }
    let shell = std::env::var_os("SHELL")
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "/bin/sh".into());
    let out = match std::fs::File::create(files::output_path(&dir)) {
        Ok(f) => f,
        Err(e) => return fail_record(&dir, format!("cannot write its output file: {e}")),
    };
    if args.wait_go && !go() {
        return not_started(&dir);
    }
    let spawned = Command::new(&shell)
        .arg("-c")
        .arg(&args.text)
        .current_dir(&args.cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn();
    let mut child = match spawned {
        Ok(c) => c,
        Err(e) => {
            return fail_record(
                &dir,
                format!("cannot start {}: {e}", shell.to_string_lossy()),
            )
        }
    };
    let pid = child.id() as i32;
    let me = std::process::id() as i32;
    let guard = GuardRecord {
        guard_pid: me,
        guard_start: files::proc_start(me).unwrap_or(0),
        pid,
        pid_start: files::proc_start(pid).unwrap_or(0),
        started_at_ms: rho_plumbing::time::now_ms(),
    };
    let written = serde_json::to_vec(&guard)
        .map_err(std::io::Error::other)
        .and_then(|b| files::write_replace(&files::guard_path(&dir), &b));
    if let Err(e) = written {
        eprintln!("rho core console-guard: cannot write guard.json: {e}");
    }
    // The service waits for the notify byte instead of looking for guard.json; it is sent once
    // the command ended (after exit.json) or START_HOLD passed, whichever comes first.
    let mut notify = args.notify.then(|| Instant::now() + START_HOLD);
    let mut keep = Keeper::new(out, dir.clone(), args.head, args.tail);
    let status = pump(&mut child, &mut keep, &mut notify);
    if let Err(e) = keep.flush(true) {
        eprintln!("rho core console-guard: writing output failed: {e}");
    }
    let record = ExitRecord {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        ended_at_ms: rho_plumbing::time::now_ms(),
        stdout_bytes: keep.totals[0],
        stderr_bytes: keep.totals[1],
        omitted_bytes: keep.omitted(),
        error: status
            .is_none()
            .then(|| "waiting for the command failed".to_string()),
    };
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    let written = files::write_replace(&files::exit_path(&dir), &bytes);
    if notify.is_some() {
        notify_now();
    }
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rho core console-guard: cannot write exit.json: {e}");
            ExitCode::from(1)
        }
    }
}
