//! Sessions on an ssh place for the tests: a spec over the private sshd, collecting a cell's
//! events, and looking for what a session left on the server (here: this machine).

use super::sshd::Sshd;
use rho_kernels::notebook::{Language, RuntimeLimits, Session, SessionEvent, Started};
use rho_kernels::remote::{start_session, RemoteSpec, Route};
use std::path::Path;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The interpreter the server runs for `language` (a known path: the server's PATH varies).
pub fn program(language: Language) -> String {
    match language {
        Language::R => which("Rscript"),
        Language::Python => {
            let p = super::notebook::python();
            if p.is_absolute() {
                p.to_string_lossy().into_owned()
            } else {
                which("python3")
            }
        }
    }
}

fn which(name: &str) -> String {
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {name}")])
        .output()
        .unwrap();
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    assert!(
        !path.is_empty(),
        "{name} is not installed: run kernels/tests/setup.sh"
    );
    // pyenv and similar shims need the caller's environment: the real file.
    std::fs::canonicalize(&path)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or(path)
}

pub fn spec(sshd: &Sshd, control: &Path, local: &Path, language: Language) -> RemoteSpec {
    RemoteSpec {
        language,
        program: program(language),
        folder: None,
        route: Route::Ssh(sshd.place(control)),
        local_dir: local.to_path_buf(),
        limits: RuntimeLimits {
            start_timeout_ms: 60_000,
            ..Default::default()
        },
        signal_timeout: Duration::from_secs(15),
        fetch_timeout: Duration::from_secs(30),
    }
}

/// A started remote session and its events.
pub struct Remote {
    pub session: Session,
    pub started: Started,
    pub events: Receiver<SessionEvent>,
    next: u64,
}

impl Remote {
    pub fn start(spec: RemoteSpec) -> Self {
        let (tx, events) = channel();
        let (session, started) = start_session(spec, tx).unwrap();
        Self {
            session,
            started,
            events,
            next: 0,
        }
    }

    pub fn send(&mut self, code: &str) -> u64 {
        self.next += 1;
        self.session.run(self.next, code).unwrap();
        self.next
    }

    /// Runs `code` and returns its events up to and including its end.
    pub fn run(&mut self, code: &str) -> Vec<SessionEvent> {
        let cell = self.send(code);
        self.collect(cell, Duration::from_secs(60))
    }

    pub fn collect(&mut self, cell: u64, within: Duration) -> Vec<SessionEvent> {
        let deadline = Instant::now() + within;
        let mut events = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self.events.recv_timeout(left).unwrap_or_else(|_| {
                panic!("cell {cell} did not end within {within:?}: {events:?}")
            });
            let end = matches!(&e, SessionEvent::CellEnded { cell: c, .. } if *c == cell);
            if let SessionEvent::Exited { .. } = e {
                panic!("the session ended during cell {cell}: {e:?} after {events:?}");
            }
            events.push(e);
            if end {
                return events;
            }
        }
    }

    /// Waits until `cell` printed `text`.
    pub fn until_printed(&mut self, cell: u64, text: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("cell {cell} did not print {text:?}"));
            if let SessionEvent::Output {
                cell: c, text: t, ..
            } = &e
            {
                if *c == cell && t.contains(text) {
                    return;
                }
            }
        }
    }

    /// Waits for the session's end; its status.
    pub fn exited(&self, within: Duration) -> String {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok(SessionEvent::Exited { status, .. }) => return status,
                Ok(_) => {}
                Err(_) => panic!("the session did not end within {within:?}"),
            }
        }
    }
}

/// The printed text of a cell's events.
pub fn text(events: &[SessionEvent]) -> String {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Output { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// Pids of live (not zombie) processes whose command line contains `needle`.
pub fn processes_with(needle: &str) -> Vec<u32> {
    let me = std::process::id();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| e.file_name().to_string_lossy().parse::<u32>().ok())
        .filter(|pid| *pid != me)
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
            let zombie = stat
                .rsplit_once(')')
                .is_some_and(|(_, rest)| rest.trim_start().starts_with('Z'));
            !zombie
                && String::from_utf8_lossy(&cmd)
                    .replace('\0', " ")
                    .contains(needle)
        })
        .collect()
}

/// The runner's folder on the server: from its command line (`… <dir>/runner.R …`).
pub fn runner_dir(pgid: u32) -> String {
    let cmd = std::fs::read(format!("/proc/{pgid}/cmdline")).unwrap();
    let args: Vec<String> = String::from_utf8_lossy(&cmd)
        .split('\0')
        .map(str::to_string)
        .collect();
    let runner = args
        .iter()
        .find(|a| a.ends_with("/runner.R") || a.ends_with("/runner.py"))
        .unwrap_or_else(|| panic!("no runner in {args:?}"));
    Path::new(runner)
        .parent()
        .unwrap()
        .to_string_lossy()
        .into_owned()
}
