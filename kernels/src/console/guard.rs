//! The Console's guard (`rho core console-guard`): a detached process that runs one shell command,
//! owns its pipes and writes its output and end to files, so the command outlives the service.
//!
//! The guard starts its own session (so neither the service's death nor a signal to the
//! service's group reaches it), runs `$SHELL -c TEXT` (fallback `/bin/sh`) as the leader of a
//! process group of its own (what `console.stop` signals), and writes the chunks of stdout and
//! stderr in the order it reads them: the first `head` bytes to `output`, then only the last
//! `tail` bytes (with the count between) to `tail`. Its exit record is fsynced. See
//! `files.rs` for the formats and decision 0602.

use super::files::{self, Chunk, ExitRecord, GuardRecord, STDERR, STDOUT};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
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
    /// The command text, given to the shell's `-c`.
    #[arg(last = true, required = true, value_name = "TEXT")]
    pub text: String,
}

/// How long output is still drained after the command ended (a background child may hold the
/// pipes open).
const DRAIN: Duration = Duration::from_millis(500);
/// How often a changing tail is rewritten.
const TAIL_EVERY: Duration = Duration::from_millis(200);

enum Msg {
    Data(u8, Vec<u8>),
    Exit(std::process::ExitStatus),
}

/// The kept output: the head written as it comes, the tail kept in memory and rewritten.
struct Keeper {
    out: std::io::BufWriter<std::fs::File>,
    dir: PathBuf,
    head_left: u64,
    tail_max: u64,
    tail: VecDeque<Chunk>,
    tail_len: u64,
    omitted: u64,
    totals: [u64; 2],
    tail_dirty: bool,
    tail_written: Instant,
}

impl Keeper {
    fn add(&mut self, stream: u8, mut bytes: &[u8]) -> std::io::Result<()> {
        self.totals[usize::from(stream == STDERR)] += bytes.len() as u64;
        if self.head_left > 0 {
            let n = (bytes.len() as u64).min(self.head_left) as usize;
            let mut f = Vec::with_capacity(n + 5);
            files::frame(&mut f, stream, &bytes[..n]);
            self.out.write_all(&f)?;
            self.head_left -= n as u64;
            bytes = &bytes[n..];
        }
        if bytes.is_empty() {
            return Ok(());
        }
        self.tail_dirty = true;
        let keep = (bytes.len() as u64).min(self.tail_max) as usize;
        self.omitted += (bytes.len() - keep) as u64;
        let kept = &bytes[bytes.len() - keep..];
        self.tail.push_back(Chunk {
            stream,
            bytes: kept.to_vec(),
        });
        self.tail_len += keep as u64;
        while self.tail_len > self.tail_max {
            let over = (self.tail_len - self.tail_max) as usize;
            let Some(front) = self.tail.front_mut() else {
                break;
            };
            if front.bytes.len() <= over {
                self.tail_len -= front.bytes.len() as u64;
                self.omitted += front.bytes.len() as u64;
                self.tail.pop_front();
            } else {
                front.bytes.drain(..over);
                self.tail_len -= over as u64;
                self.omitted += over as u64;
            }
        }
        Ok(())
    }

    /// Flushes the head and, when due (or `now`), rewrites the tail.
    fn flush(&mut self, now: bool) -> std::io::Result<()> {
        self.out.flush()?;
        if self.tail_dirty && (now || self.tail_written.elapsed() >= TAIL_EVERY) {
            let mut b = self.omitted.to_le_bytes().to_vec();
            for c in &self.tail {
                files::frame(&mut b, c.stream, &c.bytes);
            }
            files::write_replace(&files::tail_path(&self.dir), &b)?;
            self.tail_dirty = false;
            self.tail_written = Instant::now();
        }
        Ok(())
    }
}

fn reader(mut pipe: impl Read, stream: u8, tx: mpsc::SyncSender<Msg>) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => return,
            Ok(n) => {
                if tx.send(Msg::Data(stream, buf[..n].to_vec())).is_err() {
                    return;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return,
        }
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
    match files::write_atomic(&files::exit_path(dir), &bytes) {
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
    let (tx, rx) = mpsc::sync_channel::<Msg>(64);
    let mut threads = Vec::new();
    if let Some(p) = child.stdout.take() {
        let tx = tx.clone();
        threads.push(std::thread::spawn(move || reader(p, STDOUT, tx)));
    }
    if let Some(p) = child.stderr.take() {
        let tx = tx.clone();
        threads.push(std::thread::spawn(move || reader(p, STDERR, tx)));
    }
    let waiter_tx = tx;
    let waiter = std::thread::spawn(move || {
        if let Ok(status) = child.wait() {
            let _ = waiter_tx.send(Msg::Exit(status));
        }
    });
    let mut keep = Keeper {
        out: std::io::BufWriter::with_capacity(256 * 1024, out),
        dir: dir.clone(),
        head_left: args.head,
        tail_max: args.tail,
        tail: VecDeque::new(),
        tail_len: 0,
        omitted: 0,
        totals: [0, 0],
        tail_dirty: false,
        tail_written: Instant::now(),
    };
    let mut status = None;
    let mut drain_until: Option<Instant> = None;
    loop {
        let msg = match drain_until {
            None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            Some(t) => rx.recv_timeout(t.saturating_duration_since(Instant::now())),
        };
        let mut batch = match msg {
            Ok(m) => vec![m],
            Err(_) => break,
        };
        batch.extend(rx.try_iter().take(256));
        for m in batch {
            match m {
                Msg::Data(s, b) => {
                    if let Err(e) = keep.add(s, &b) {
                        eprintln!("rho core console-guard: writing output failed: {e}");
                    }
                }
                Msg::Exit(s) => {
                    status = Some(s);
                    drain_until = Some(Instant::now() + DRAIN);
                }
            }
        }
        if let Err(e) = keep.flush(false) {
            eprintln!("rho core console-guard: writing output failed: {e}");
        }
    }
    drop(rx);
    let _ = waiter.join();
    if let Err(e) = keep.flush(true) {
        eprintln!("rho core console-guard: writing output failed: {e}");
    }
    let record = ExitRecord {
        exit_code: status.and_then(|s| s.code()),
        signal: status.and_then(|s| s.signal()),
        ended_at_ms: rho_plumbing::time::now_ms(),
        stdout_bytes: keep.totals[0],
        stderr_bytes: keep.totals[1],
        omitted_bytes: keep.omitted,
        error: status
            .is_none()
            .then(|| "waiting for the command failed".to_string()),
    };
    let bytes = serde_json::to_vec(&record).unwrap_or_default();
    match files::write_atomic(&files::exit_path(&dir), &bytes) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("rho core console-guard: cannot write exit.json: {e}");
            ExitCode::from(1)
        }
    }
}
