//! A notebook session on a server or in a Slurm allocation: Rho's runner shipped through the
//! remote wrapper and run on that machine's interpreter over the route's pipes, with the same
//! cells, output, variables, inspect and interrupt as a local session; plots are brought back.

use super::route::Route;
use super::wrapper::{launch_line, parse_wrap, setup_script, wrapper_exit, Launch, Wrap};
use super::PlaceError;
use crate::notebook::link::Link;
use crate::notebook::reader::{read_stderr, read_stdout, Fetch, Fetched, Shared};
use crate::notebook::session::{nonce, StartErrorOr};
use crate::notebook::{Language, RuntimeLimits, Session, SessionEvent, StartError, Started};
use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use rho_plumbing::child::{self, Cut};
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, Stdio};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

/// Everything a session elsewhere is started with.
#[derive(Debug, Clone)]
pub struct RemoteSpec {
    pub language: Language,
    /// The interpreter as that machine names it (`Rscript`, `/usr/bin/python3`).
    pub program: String,
    /// Its working folder there (none: the login's folder).
    pub folder: Option<String>,
    pub route: Route,
    /// A local folder for the plots brought back.
    pub local_dir: PathBuf,
    /// The runner's limits; `start_timeout_ms` is `remoteStartTimeoutMs`.
    pub limits: RuntimeLimits,
    /// `remoteSignalTimeoutMs`: each signal's round trip.
    pub signal_timeout: Duration,
    /// How long bringing one plot back may take.
    pub fetch_timeout: Duration,
}

/// The wrap frame once read, and whether it was.
#[derive(Default)]
struct WrapSlot {
    wrap: Mutex<Option<Wrap>>,
    seen: Condvar,
}

impl WrapSlot {
    fn get(&self) -> Option<Wrap> {
        self.wrap.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }
}

/// The link to a runner elsewhere: its route's stdin carries commands; signals are short
/// commands beside it; a hard end kills the local ssh or srun, whose end the wrapper sees.
struct RemoteLink {
    route: Route,
    stdin: Mutex<Option<ChildStdin>>,
    /// The local ssh's (or srun's) own process group.
    local: Pid,
    wrap: Arc<WrapSlot>,
    signal_timeout: Duration,
}

impl Link for RemoteLink {
    fn send(&self, line: &[u8]) -> std::io::Result<()> {
        let mut stdin = self.stdin.lock().unwrap_or_else(|p| p.into_inner());
        let pipe = stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the session's pipe is closed"))?;
        pipe.write_all(line)?;
        pipe.flush()
    }

    fn signal(&self, signal: Signal) -> std::io::Result<()> {
        let wrap = self
            .wrap
            .get()
            .ok_or_else(|| std::io::Error::other("the runner's process group is not known yet"))?;
        let name = signal.as_str().trim_start_matches("SIG");
        let script = format!("kill -{name} -{}", wrap.pgid);
        let cmd = self
            .route
            .beside(&script, &wrap.job, self.signal_timeout)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        let run = child::run(cmd, self.signal_timeout, 16 * 1024)
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        if run.cut == Some(Cut::Timeout) {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!(
                    "{} did not reach the server within remoteSignalTimeoutMs ({} ms)",
                    signal.as_str(),
                    self.signal_timeout.as_millis()
                ),
            ));
        }
        match run.exit_code {
            Some(0) => Ok(()),
            code => Err(std::io::Error::other(format!(
                "{} was not delivered: {}",
                signal.as_str(),
                super::ssh::reason(&run.stderr, code)
            ))),
        }
    }

    fn kill(&self) {
        // The wrapper on the other side sees its stdin end and kills the runner's group.
        let _ = killpg(self.local, Signal::SIGKILL);
        if let Ok(mut stdin) = self.stdin.try_lock() {
            stdin.take();
        }
        // A killed srun does not end its step's tasks (Slurm keeps them, and the allocation,
        // running): the session's job is cancelled, on a thread of its own (bounded).
        if let (Route::Srun { login, slurm, .. }, Some(wrap)) = (&self.route, self.wrap.get()) {
            if wrap.job.is_empty() || !wrap.job.bytes().all(|b| b.is_ascii_digit()) {
                return;
            }
            let argv = vec![slurm.program("scancel"), wrap.job.clone()];
            let Ok(cmd) = slurm.command(login.as_ref(), &argv, self.signal_timeout) else {
                return;
            };
            let timeout = self.signal_timeout;
            let _ = std::thread::Builder::new()
                .name("srun-scancel".into())
                .spawn(move || match child::run(cmd, timeout, 16 * 1024) {
                    Ok(r) if r.exit_code == Some(0) => {}
                    Ok(r) => tracing::warn!(
                        job = %wrap.job,
                        error = %super::ssh::reason(&r.stderr, r.exit_code),
                        "scancel of a killed session's job failed"
                    ),
                    Err(e) => tracing::warn!(job = %wrap.job, error = %e, "scancel of a killed session's job failed"),
                });
        }
    }

    fn pid(&self) -> u32 {
        self.wrap.get().map_or(0, |w| w.pgid)
    }
}

/// Reads one plot file written beside the session into `dir`, unless it is over `max` bytes
/// (then only its size comes back); the file there is removed.
fn fetch_plot(
    route: &Route,
    wrap: &WrapSlot,
    dir: &Path,
    remote: &Path,
    max: u64,
    timeout: Duration,
) -> Result<Fetched, String> {
    let job = wrap.get().map(|w| w.job).unwrap_or_default();
    let name = remote
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| format!("{} names no file", remote.display()))?;
    let quoted = super::ssh::quote(&remote.to_string_lossy()).map_err(|e| e.to_string())?;
    let script = format!(
        "f={quoted}; s=$(stat -L -c %s -- \"$f\") || exit 3; printf '%s\\n' \"$s\"; if [ \"$s\" -le {max} ]; then cat -- \"$f\" || exit 4; fi; rm -f -- \"$f\""
    );
    let cmd = route
        .beside(&script, &job, timeout)
        .map_err(|e| e.to_string())?;
    let run = child::run(cmd, timeout, max + 64).map_err(|e| e.to_string())?;
    match run.cut {
        Some(Cut::Timeout) => return Err(format!("no answer within {} ms", timeout.as_millis())),
        Some(Cut::OutputLimit) => return Err(format!("more than {max} bytes came back")),
        None => {}
    }
    if run.exit_code != Some(0) {
        return Err(super::ssh::reason(&run.stderr, run.exit_code));
    }
    let at = run
        .stdout
        .iter()
        .position(|b| *b == b'\n')
        .ok_or("no size came back")?;
    let bytes: u64 = String::from_utf8_lossy(&run.stdout[..at])
        .trim()
        .parse()
        .map_err(|_| "no size came back".to_string())?;
    let local = dir.join(&name);
    if bytes <= max {
        let data = &run.stdout[at + 1..];
        if data.len() as u64 != bytes {
            return Err(format!("{} of {bytes} bytes came back", data.len()));
        }
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        std::fs::write(&local, data).map_err(|e| e.to_string())?;
    }
    Ok(Fetched { path: local, bytes })
}

/// The status a route's command ended with, in words.
fn status_words(via: &str, status: &std::io::Result<std::process::ExitStatus>) -> String {
    match status {
        Ok(st) => match (st.code(), st.signal()) {
            (Some(255), _) if via == "ssh" => "the ssh connection ended (exit 255)".into(),
            (Some(124), _) if via == "serverctl" => {
                "serverctl ended it: its time limit for one command (serverctlSessionS) passed (exit 124)".into()
            }
            (Some(c), _) => match wrapper_exit(c) {
                Some(why) => format!("exit {c}: {why}"),
                None if c > 128 && c < 160 => Signal::try_from(c - 128)
                    .map(|s| format!("signal {} (on the server)", s.as_str()))
                    .unwrap_or_else(|_| format!("exit {c}")),
                None => format!("exit {c}"),
            },
            (None, Some(sig)) => Signal::try_from(sig)
                .map(|s| format!("{via} was ended ({})", s.as_str()))
                .unwrap_or_else(|_| format!("{via} was ended (signal {sig})")),
            _ => "ended".into(),
        },
        Err(e) => format!("unknown ({e})"),
    }
}

/// Reads stdout up to the wrap frame: what comes first is the login's (kept in the tail);
/// returns the bytes read after the frame, or `None` when the stream ended first.
fn read_wrap(
    shared: &Shared,
    out: &mut impl Read,
    nonce: &str,
    slot: &WrapSlot,
) -> Option<Vec<u8>> {
    let marker = format!("\u{2}RHO{nonce}#0 ").into_bytes();
    let mut buf: Vec<u8> = Vec::new();
    let mut chunk = vec![0u8; 16 * 1024];
    loop {
        let n = match out.read(&mut chunk) {
            Ok(0) | Err(_) => {
                shared.login_text(&String::from_utf8_lossy(&buf));
                return None;
            }
            Ok(n) => n,
        };
        buf.extend_from_slice(&chunk[..n]);
        let Some(at) = buf.windows(marker.len()).position(|w| w == marker) else {
            continue;
        };
        let Some(end) = buf[at..].iter().position(|b| *b == 3).map(|e| at + e) else {
            continue;
        };
        shared.login_text(&String::from_utf8_lossy(&buf[..at]));
        let json = String::from_utf8_lossy(&buf[at + marker.len()..end]).into_owned();
        let rest = buf[end + 1..].to_vec();
        *slot.wrap.lock().unwrap_or_else(|p| p.into_inner()) = parse_wrap(&json);
        slot.seen.notify_all();
        return Some(rest);
    }
}

/// Starts a session elsewhere and blocks until its runner is ready, at most
/// `remoteStartTimeoutMs` (then the route's command is ended, with what the login printed).
pub fn start(
    spec: RemoteSpec,
    events: Sender<SessionEvent>,
) -> Result<(Session, Started), StartError> {
    let io = |what: &str, e: &dyn std::fmt::Display| StartError::Io(format!("{what}: {e}"));
    let place_err = |e: PlaceError| StartError::Io(e.to_string());
    let nonce = nonce().map_err(|e| io("a random nonce", &e))?;
    type Pairs = &'static [(&'static str, &'static str)];
    let (files, args, env): (Pairs, &[&str], Pairs) = match spec.language {
        Language::R => (&crate::notebook::RUNNER_R, &[], &[]),
        Language::Python => (
            &crate::notebook::RUNNER_PY,
            &["-u"],
            &[("MPLBACKEND", "Agg"), ("PYTHONUNBUFFERED", "1")],
        ),
    };
    let limits_json = serde_json::to_string(&spec.limits).map_err(|e| io("the limits", &e))?;
    let script = setup_script(&Launch {
        program: &spec.program,
        program_args: args,
        files,
        env,
        folder: spec.folder.as_deref(),
        nonce: &nonce,
        limits_json: &limits_json,
    })
    .map_err(place_err)?;
    let start_within = Duration::from_millis(spec.limits.start_timeout_ms);
    if let Route::Ssh(place) = &spec.route {
        place
            .prepare()
            .map_err(|e| io("the ssh control folder", &e))?;
    }
    let mut cmd = spec
        .route
        .session(&launch_line(script.len()), start_within)
        .map_err(place_err)?;
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let via = spec.route.via();
    let mut child = cmd
        .spawn()
        .map_err(|e| io(&format!("cannot start {via}"), &e))?;
    let local = Pid::from_raw(i32::try_from(child.id()).unwrap_or(i32::MAX));
    let slot = Arc::new(WrapSlot::default());
    let fetch: Fetch = {
        let (route, slot, dir, timeout) = (
            spec.route.clone(),
            Arc::clone(&slot),
            spec.local_dir.join("plots"),
            spec.fetch_timeout,
        );
        Box::new(move |remote: &Path, max: u64| {
            fetch_plot(&route, &slot, &dir, remote, max, timeout)
        })
    };
    let shared = Shared::fetching(events, spec.limits, Some(fetch));
    let (stdin, stdout, stderr) = (child.stdin.take(), child.stdout.take(), child.stderr.take());
    let link = Arc::new(RemoteLink {
        route: spec.route.clone(),
        stdin: Mutex::new(stdin),
        local,
        wrap: Arc::clone(&slot),
        signal_timeout: spec.signal_timeout,
    });
    let session = Session::assemble(Arc::clone(&shared), link.clone());
    let threads = (|| -> std::io::Result<()> {
        // The setup script goes first; command lines follow it on the same pipe.
        let l = Arc::clone(&link);
        std::thread::Builder::new()
            .name("nb-remote-setup".into())
            .spawn(move || {
                let _ = l.send(script.as_bytes());
            })?;
        let (s, w, n) = (Arc::clone(&shared), Arc::clone(&slot), nonce.clone());
        let out_reader = std::thread::Builder::new()
            .name("nb-stdout".into())
            .spawn(move || {
                if let Some(mut out) = stdout {
                    if let Some(rest) = read_wrap(&s, &mut out, &n, &w) {
                        read_stdout(&s, std::io::Cursor::new(rest).chain(out), &n);
                    }
                }
                w.seen.notify_all();
            })?;
        let s = Arc::clone(&shared);
        let err_reader = std::thread::Builder::new()
            .name("nb-stderr".into())
            .spawn(move || {
                if let Some(err) = stderr {
                    read_stderr(&s, err);
                }
            })?;
        let s = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("nb-wait".into())
            .spawn(move || {
                let _ = out_reader.join();
                let _ = err_reader.join();
                let status = child.wait();
                s.exited(status_words(via, &status));
            })?;
        Ok(())
    })();
    if let Err(e) = threads {
        link.kill();
        return Err(io("the session's threads", &e));
    }
    match session.ready(start_within, 0) {
        Ok((session, mut started)) => {
            started.pid = link.pid();
            Ok((session, started))
        }
        Err(StartErrorOr::Start(e)) => Err(e),
        Err(StartErrorOr::Other(printed)) => Err(StartError::Unready {
            what: format!(
                "the runner was not ready within remoteStartTimeoutMs ({} ms); its {via} was ended",
                start_within.as_millis()
            ),
            printed,
        }),
    }
}
