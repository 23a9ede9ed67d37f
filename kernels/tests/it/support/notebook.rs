//! Notebook sessions for the tests: a spec under the crate's own guard, and collecting a
//! cell's events until it ends.

use rho_kernels::notebook::{
    self, CellOutcome, GuardCommand, Language, RuntimeLimits, Session, SessionEvent, SessionSpec,
    Started, Stream, Variables,
};
use std::path::PathBuf;
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// Python with pandas and matplotlib when the test command made one (kernels/tests/setup.sh),
/// else python3 from PATH.
pub fn python() -> PathBuf {
    if let Some(p) = std::env::var_os("RHO_TEST_PYTHON") {
        return p.into();
    }
    let venv = PathBuf::from(std::env::var("HOME").unwrap_or_default())
        .join(".cache/rho-test/notebook-venv/bin/python");
    if venv.exists() {
        venv
    } else {
        "python3".into()
    }
}

pub fn spec(dir: &std::path::Path, language: Language, limits: RuntimeLimits) -> SessionSpec {
    SessionSpec {
        language,
        program: match language {
            Language::R => "Rscript".into(),
            Language::Python => python(),
        },
        cwd: dir.to_path_buf(),
        state_dir: dir.join(".rho/plugins/kernel/sessions/s1"),
        guard: GuardCommand {
            program: super::CORE.into(),
            args: vec!["core".into(), "guard".into(), "--".into()],
        },
        limits,
    }
}

/// A started session, its events, and the cell counter.
pub struct Live {
    pub session: Session,
    pub started: Started,
    pub events: Receiver<SessionEvent>,
    pub dir: tempfile::TempDir,
    next: u64,
}

/// What one cell produced.
#[derive(Debug)]
pub struct Cell {
    pub events: Vec<SessionEvent>,
    pub outcome: CellOutcome,
    pub variables: Variables,
    pub defined: Vec<String>,
    pub removed: Option<Vec<String>>,
}

impl Cell {
    /// The cell's output as (stream, text), adjacent pieces of one stream joined.
    pub fn output(&self) -> Vec<(Stream, String)> {
        let mut out: Vec<(Stream, String)> = Vec::new();
        for e in &self.events {
            if let SessionEvent::Output { stream, text, .. } = e {
                match out.last_mut() {
                    Some((s, t)) if s == stream => t.push_str(text),
                    _ => out.push((*stream, text.clone())),
                }
            }
        }
        out
    }

    pub fn text(&self) -> String {
        self.output().into_iter().map(|(_, t)| t).collect()
    }

    pub fn plots(&self) -> Vec<notebook::PlotFile> {
        self.events
            .iter()
            .filter_map(|e| match e {
                SessionEvent::Plot { plot, .. } => Some(plot.clone()),
                _ => None,
            })
            .collect()
    }
}

impl Live {
    pub fn start(language: Language) -> Self {
        Self::start_with(language, RuntimeLimits::default())
    }

    pub fn start_with(language: Language, limits: RuntimeLimits) -> Self {
        let dir = tempfile::Builder::new()
            .prefix("nb")
            .tempdir_in("/tmp")
            .unwrap();
        let (tx, events) = channel();
        let (session, started) = notebook::start(spec(dir.path(), language, limits), tx).unwrap();
        Self {
            session,
            started,
            events,
            dir,
            next: 0,
        }
    }

    /// Gives the session a cell; returns its number.
    pub fn send(&mut self, code: &str) -> u64 {
        self.next += 1;
        self.session.run(self.next, code).unwrap();
        self.next
    }

    /// Runs `code` and collects its events until it ends.
    pub fn run(&mut self, code: &str) -> Cell {
        let cell = self.send(code);
        self.collect(cell, Duration::from_secs(60))
    }

    /// Waits until `cell` printed `text` (its code has started running); the events read meanwhile
    /// are dropped.
    pub fn until_printed(&mut self, cell: u64, text: &str, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self
                .events
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("cell {cell} did not print {text:?} within {within:?}"));
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

    pub fn collect(&mut self, cell: u64, within: Duration) -> Cell {
        let deadline = Instant::now() + within;
        let mut events = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let e = self.events.recv_timeout(left).unwrap_or_else(|_| {
                panic!("cell {cell} did not end within {within:?}: {events:?}")
            });
            if let SessionEvent::CellEnded {
                cell: c,
                outcome,
                variables,
                defined,
                removed,
            } = &e
            {
                if *c == cell {
                    return Cell {
                        outcome: *outcome,
                        variables: variables.clone(),
                        defined: defined.clone(),
                        removed: removed.clone(),
                        events,
                    };
                }
            }
            if let SessionEvent::Exited { .. } = e {
                panic!("the session ended during cell {cell}: {e:?} after {events:?}");
            }
            events.push(e);
        }
    }
}
