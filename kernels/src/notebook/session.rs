//! Starting a session under the guard and driving it: one cell at a time, interrupt (SIGINT to
//! the group), stop (SIGTERM, SIGKILL after `stopGraceMs`), and inspections while idle.

use super::link::{Link, LocalLink};
use super::reader::{read_stderr, read_stdout, Shared};
use super::types::{
    CellNo, InspectReply, InspectRequest, Language, SessionEvent, SessionSpec, Started,
};
use nix::sys::signal::Signal;
use nix::unistd::Pid;
use std::fs::File;
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Why a session did not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error("cannot start the session: {0}")]
    Io(String),
    #[error("the runner was not ready within startTimeoutMs; it was killed")]
    Timeout { printed: String },
    #[error("the runner ended before it was ready ({status})")]
    Exited { status: String, printed: String },
    /// A runner on a server that was not ready in time (`what` names the bound and what ended).
    #[error("{what}")]
    Unready { what: String, printed: String },
}

impl StartError {
    /// What the runner (and a server's login) printed before it failed.
    pub fn printed(&self) -> &str {
        match self {
            StartError::Io(_) => "",
            StartError::Timeout { printed }
            | StartError::Exited { printed, .. }
            | StartError::Unready { printed, .. } => printed,
        }
    }
}

/// Why a cell could not be given to a session.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum SessionError {
    #[error("the session is running a cell or a reading")]
    Busy,
    #[error("no cell is running")]
    Idle,
    #[error("the session has ended")]
    Ended,
    #[error("cannot talk to the runner: {0}")]
    Io(String),
}

/// Why an inspection has no value to show.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum InspectError {
    #[error("the session is running a cell or a reading")]
    Busy,
    #[error("no such value in the session")]
    Missing,
    #[error("the reading took longer than inspectTimeoutMs and was interrupted")]
    Timeout,
    #[error("the reading failed: {0}")]
    Failed(String),
    #[error("the session has ended")]
    Ended,
}

/// A live session. Dropping it kills the runner's whole process group; so does the death of
/// this process (the guard sees its stdin close; a server's wrapper sees its ssh end).
pub struct Session {
    shared: Arc<Shared>,
    link: Arc<dyn Link>,
    next_inspect: AtomicU64,
}

/// Starts a session and blocks until its runner is ready, at most `startTimeoutMs`.
pub fn start(
    spec: SessionSpec,
    events: Sender<SessionEvent>,
) -> Result<(Session, Started), StartError> {
    let io = |what: &str, e: std::io::Error| StartError::Io(format!("{what}: {e}"));
    std::fs::create_dir_all(&spec.state_dir).map_err(|e| io("the session folder", e))?;
    let files = match spec.language {
        Language::R => super::RUNNER_R,
        Language::Python => super::RUNNER_PY,
    };
    for (name, text) in files {
        std::fs::write(spec.state_dir.join(name), text).map_err(|e| io("the runner program", e))?;
    }
    let runner = spec.state_dir.join(files[0].0);
    let nonce = nonce().map_err(|e| io("a random nonce", e))?;
    let config = spec.state_dir.join("config.json");
    let config_json =
        serde_json::json!({ "nonce": nonce, "stateDir": spec.state_dir, "limits": spec.limits });
    std::fs::write(&config, config_json.to_string()).map_err(|e| io("the runner's settings", e))?;
    let fifo = spec.state_dir.join("commands");
    let _ = std::fs::remove_file(&fifo);
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600))
        .map_err(|e| io("the command pipe", e.into()))?;
    // Read and write: opening never blocks and the pipe never reads EOF while we hold it.
    let commands = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(&fifo)
        .map_err(|e| io("the command pipe", e))?;

    let mut cmd = Command::new(&spec.guard.program);
    cmd.args(&spec.guard.args).arg(&spec.program);
    if spec.language == Language::Python {
        cmd.arg("-u").env("PYTHONUNBUFFERED", "1");
        if std::env::var_os("MPLBACKEND").is_none() {
            cmd.env("MPLBACKEND", "Agg");
        }
    }
    cmd.arg(&runner)
        .arg(&fifo)
        .arg(&config)
        .current_dir(&spec.cwd)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = cmd
        .spawn()
        .map_err(|e| io(&format!("{}", spec.guard.program.display()), e))?;
    let pid = child.id();
    let pgid = Pid::from_raw(i32::try_from(pid).unwrap_or(i32::MAX));
    let shared = Shared::new(events, spec.limits);
    let guard_stdin = child.stdin.take();
    let (stdout, stderr) = (child.stdout.take(), child.stderr.take());
    let threads = (|| -> std::io::Result<()> {
        let s = Arc::clone(&shared);
        let out_reader = std::thread::Builder::new()
            .name("nb-stdout".into())
            .spawn(move || {
                if let Some(out) = stdout {
                    read_stdout(&s, out, &nonce);
                }
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
                let status = match child.wait() {
                    Ok(st) => match (st.code(), st.signal()) {
                        (Some(c), _) => format!("exit {c}"),
                        (None, Some(sig)) => Signal::try_from(sig)
                            .map(|s| format!("signal {}", s.as_str()))
                            .unwrap_or_else(|_| format!("signal {sig}")),
                        _ => "ended".to_string(),
                    },
                    Err(e) => format!("unknown ({e})"),
                };
                s.exited(status);
            })?;
        Ok(())
    })();
    let link = LocalLink {
        pgid,
        commands: Mutex::new(commands),
        _guard_stdin: Mutex::new(guard_stdin),
    };
    let session = Session::assemble(shared, Arc::new(link));
    if let Err(e) = threads {
        return Err(io("the session's threads", e));
    }
    let within = Duration::from_millis(spec.limits.start_timeout_ms);
    session.ready(within, pid).map_err(|e| match e {
        StartErrorOr::Start(e) => e,
        StartErrorOr::Other(printed) => StartError::Timeout { printed },
    })
}

impl Session {
    /// A session over `link` whose reader threads feed `shared`.
    pub(crate) fn assemble(shared: Arc<Shared>, link: Arc<dyn Link>) -> Session {
        Session {
            shared,
            link,
            next_inspect: AtomicU64::new(1),
        }
    }

    /// Waits up to `within` for the runner's ready message. `Err` is a timeout: the runner was
    /// killed and this is what it printed; an exit before ready is `Exited`.
    pub(crate) fn ready(
        self,
        within: Duration,
        pid: u32,
    ) -> Result<(Session, Started), StartErrorOr<String>> {
        let deadline = Instant::now() + within;
        let mut st = self.shared.lock();
        loop {
            if let Some(version) = st.version.clone() {
                drop(st);
                return Ok((
                    self,
                    Started {
                        pid,
                        program_version: version,
                    },
                ));
            }
            if let Some(status) = st.ended.clone() {
                let printed = st.tail.clone();
                return Err(StartErrorOr::Start(StartError::Exited { status, printed }));
            }
            let now = Instant::now();
            if now >= deadline {
                drop(st);
                self.link.kill();
                return Err(StartErrorOr::Other(self.wait_end(Duration::from_secs(5))));
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The leader of the session's process group where it runs (the guard's pid here; the
    /// runner's on a server).
    pub fn pid(&self) -> u32 {
        self.link.pid()
    }

    /// Whether the process has ended.
    pub fn ended(&self) -> bool {
        self.shared.lock().ended.is_some()
    }

    /// Whether no cell and no reading is running.
    pub fn idle(&self) -> bool {
        let st = self.shared.lock();
        st.ended.is_none() && st.running.is_none() && st.inspecting.is_none()
    }

    /// Gives the runner one cell; its output and end arrive as events.
    pub fn run(&self, cell: CellNo, code: &str) -> Result<(), SessionError> {
        {
            let mut st = self.shared.lock();
            if st.ended.is_some() {
                return Err(SessionError::Ended);
            }
            if st.running.is_some() || st.inspecting.is_some() {
                return Err(SessionError::Busy);
            }
            st.begin_cell(cell);
        }
        let line = serde_json::json!({ "op": "run", "cell": cell, "code": code });
        self.send(&line).map_err(|e| {
            self.shared.lock().running = None;
            SessionError::Io(e.to_string())
        })
    }

    /// SIGINT to the group while a cell runs: the cell ends `interrupted`, values stay.
    pub fn interrupt(&self) -> Result<(), SessionError> {
        let st = self.shared.lock();
        if st.ended.is_some() {
            return Err(SessionError::Ended);
        }
        if st.running.is_none() {
            return Err(SessionError::Idle);
        }
        drop(st);
        self.link
            .signal(Signal::SIGINT)
            .map_err(|e| SessionError::Io(e.to_string()))
    }

    /// SIGTERM to the group, SIGKILL after `stopGraceMs`; returns at once (`Exited` follows).
    pub fn stop(&self) {
        if self.ended() {
            return;
        }
        let (shared, link) = (Arc::clone(&self.shared), Arc::clone(&self.link));
        let grace = Duration::from_millis(self.shared.limits.stop_grace_ms);
        // The SIGTERM is sent from the thread: a server's takes a round trip.
        let _ = std::thread::Builder::new()
            .name("nb-stop".into())
            .spawn(move || {
                let deadline = Instant::now() + grace;
                let _ = link.signal(Signal::SIGTERM);
                let mut st = shared.lock();
                while st.ended.is_none() {
                    let now = Instant::now();
                    if now >= deadline {
                        drop(st);
                        link.kill();
                        return;
                    }
                    st = shared
                        .changed
                        .wait_timeout(st, deadline - now)
                        .map(|(g, _)| g)
                        .unwrap_or_else(|p| p.into_inner().0);
                }
            });
    }

    /// Reads one value while the session is idle (see docs/notebook-runtime.md).
    pub fn inspect(&self, req: InspectRequest) -> Result<InspectReply, InspectError> {
        let limits = self.shared.limits;
        let id = self.next_inspect.fetch_add(1, Ordering::Relaxed);
        {
            let mut st = self.shared.lock();
            if st.ended.is_some() {
                return Err(InspectError::Ended);
            }
            if st.running.is_some() || st.inspecting.is_some() {
                return Err(InspectError::Busy);
            }
            st.inspecting = Some(id);
            st.reply = None;
        }
        let rows = if req.rows == 0 {
            limits.inspect_rows
        } else {
            req.rows.min(limits.inspect_rows_max)
        };
        let line = serde_json::json!({
            "op": "inspect", "id": id, "path": req.name_or_path, "offset": req.offset,
            "rows": rows, "sort": req.sort,
        });
        if let Err(e) = self.send(&line) {
            self.shared.lock().inspecting = None;
            return Err(InspectError::Failed(e.to_string()));
        }
        let answer = match self.await_reply(id, Duration::from_millis(limits.inspect_timeout_ms)) {
            Some(a) => a,
            None => {
                if self.ended() {
                    return Err(InspectError::Ended);
                }
                let _ = self.link.signal(Signal::SIGINT);
                let _ = self.await_reply(id, Duration::from_millis(limits.inspect_give_up_ms));
                return Err(if self.ended() {
                    InspectError::Ended
                } else {
                    InspectError::Timeout
                });
            }
        };
        if answer.ok {
            return Ok(answer.value);
        }
        Err(match answer.error.as_str() {
            "missing" => InspectError::Missing,
            "interrupted" => InspectError::Timeout,
            _ => InspectError::Failed(answer.message),
        })
    }

    fn await_reply(&self, id: u64, within: Duration) -> Option<super::reader::InspectAnswer> {
        let deadline = Instant::now() + within;
        let mut st = self.shared.lock();
        loop {
            if let Some((rid, answer)) = st.reply.take() {
                if rid == id {
                    return Some(answer);
                }
            }
            let now = Instant::now();
            if st.ended.is_some() || now >= deadline {
                return None;
            }
            st = self
                .shared
                .changed
                .wait_timeout(st, deadline - now)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    fn send(&self, line: &serde_json::Value) -> std::io::Result<()> {
        let mut text = line.to_string();
        text.push('\n');
        self.link.send(text.as_bytes())
    }

    /// Waits (bounded) for the process to end; returns what it printed last.
    pub(crate) fn wait_end(&self, within: Duration) -> String {
        let deadline = Instant::now() + within;
        let mut st = self.shared.lock();
        while st.ended.is_none() && Instant::now() < deadline {
            st = self
                .shared
                .changed
                .wait_timeout(st, Duration::from_millis(50))
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
        st.tail.clone()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        if !self.ended() {
            self.link.kill();
        }
    }
}

/// A start error, or what a timed-out start printed (its caller words the error).
#[derive(Debug)]
pub(crate) enum StartErrorOr<T> {
    Start(StartError),
    Other(T),
}

/// 128 random bits as hex, from the kernel.
pub(crate) fn nonce() -> std::io::Result<String> {
    use std::io::Read;
    let mut b = [0u8; 16];
    File::open("/dev/urandom")?.read_exact(&mut b)?;
    Ok(b.iter().map(|x| format!("{x:02x}")).collect())
}

#[cfg(test)]
mod tests {
    /// The owner shares one session between its actor and reader threads.
    #[test]
    fn a_session_is_send_and_sync() {
        fn shared<T: Send + Sync>() {}
        shared::<super::Session>();
    }
}
