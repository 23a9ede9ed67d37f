//! A project's live sessions: starting one through `rho_kernels::notebook`, its queue run one cell at a time, interrupt and stop.

use super::bridge::{self, Recorder};
use super::contract::{CellEnd, Language, Outcome, SessionEnd, SessionEndReason};
use super::events::KernelEvent;
use rho_kernels::notebook::{self as rt, GuardCommand, Session};
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

/// The programs sessions run (`--rscript`/`RHO_RSCRIPT`, `--python`/`RHO_PYTHON`) and the guard.
#[derive(Debug, Clone, Default)]
pub struct KernelRuntime {
    pub rscript: Option<PathBuf>,
    pub python: Option<PathBuf>,
    /// How the kill-with-parent guard runs (`rho core guard --`); none: no session can start.
    pub guard: Option<GuardCommand>,
}

/// One cell handed to a session.
#[derive(Debug, Clone)]
pub(crate) struct Queued {
    pub no: u64,
    pub cell_id: String,
}

/// What a live session runs and who asked it to stop.
#[derive(Default)]
pub(crate) struct Pump {
    pub queue: VecDeque<(Queued, String)>,
    /// The cell the runner has, or the one whose start is being journaled (its slot is held).
    pub running: Option<Queued>,
    /// A `kernel.inspect` reading holds the session.
    pub reading: bool,
    pub stop_by: Option<String>,
    pub ended: bool,
}

/// What became of a cell whose start was journaled with its arrival.
pub(crate) enum Handed {
    /// The runner has it.
    Running,
    /// The session did not take it (it ended meanwhile); why.
    Refused(String),
}

/// One live session.
pub(crate) struct Live {
    pub session_id: String,
    pub language: Language,
    pub session: Session,
    pub pump: Mutex<Pump>,
    pub recorder: Recorder,
}

/// Locks `m`, taking its value over from a panicked holder (the state stays consistent: every
/// critical section is a few assignments).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl Live {
    /// Adds a cell to the queue (in arrival order) and runs the next one if the session is free.
    pub(crate) fn enqueue(&self, cell: Queued, code: String) {
        {
            let mut p = lock(&self.pump);
            let at = p.queue.iter().take_while(|(q, _)| q.no < cell.no).count();
            p.queue.insert(at, (cell, code));
        }
        self.pump();
    }

    /// Holds the session's slot for the cell `cell_id` when nothing runs, waits or reads:
    /// its start is then journaled with its arrival (decision 0515).
    pub(crate) fn reserve(&self, cell_id: &str) -> bool {
        let mut p = lock(&self.pump);
        if p.ended || p.running.is_some() || p.reading || !p.queue.is_empty() {
            return false;
        }
        if !self.session.idle() {
            return false;
        }
        p.running = Some(Queued {
            no: 0,
            cell_id: cell_id.to_string(),
        });
        true
    }

    /// Gives the runner the cell whose slot was held, now that its start is durable.
    pub(crate) fn run_reserved(&self, no: u64, cell_id: &str, code: &str) -> Handed {
        let mut p = lock(&self.pump);
        match p.running.as_mut() {
            Some(q) if q.cell_id == cell_id => q.no = no,
            // The session ended meanwhile and its end took the slot.
            _ => return Handed::Refused("the session ended before the cell ran".into()),
        }
        match self.session.run(no, code) {
            Ok(()) => Handed::Running,
            Err(e) => {
                p.running = None;
                drop(p);
                self.pump();
                Handed::Refused(format!("the session did not take the cell: {e}"))
            }
        }
    }

    /// Lets go of a slot held for `cell_id` that its cell did not take.
    pub(crate) fn release(&self, cell_id: &str) {
        {
            let mut p = lock(&self.pump);
            if p.running.as_ref().is_some_and(|q| q.cell_id == cell_id) {
                p.running = None;
            }
        }
        self.pump();
    }

    /// Holds the session for a reading when no cell runs or waits; false: busy.
    pub(crate) fn begin_reading(&self) -> bool {
        let mut p = lock(&self.pump);
        if p.running.is_some() || !p.queue.is_empty() || p.reading {
            return false;
        }
        p.reading = true;
        true
    }

    /// The reading is over (answered, given up on, failed); a cell asked for meanwhile runs
    /// once the session is free.
    pub(crate) fn end_reading(&self) {
        lock(&self.pump).reading = false;
        self.pump();
    }

    /// Starts the next waiting cell when none runs (its start is journaled before it runs).
    pub(crate) fn pump(&self) {
        let mut p = lock(&self.pump);
        if p.ended || p.running.is_some() || p.reading || !self.session.idle() {
            return;
        }
        let Some((cell, code)) = p.queue.pop_front() else {
            return;
        };
        self.recorder.record(vec![KernelEvent::CellStarted {
            cell_id: cell.cell_id.clone(),
            session_id: self.session_id.clone(),
        }]);
        match self.session.run(cell.no, &code) {
            Ok(()) => p.running = Some(cell),
            Err(e) => self.recorder.record(vec![bridge::ended(
                &cell.cell_id,
                Outcome::Error,
                None,
                Some(format!("the session did not take the cell: {e}")),
            )]),
        }
    }
}

/// The live sessions of one project, by language.
#[derive(Clone, Default)]
pub struct LiveSessions {
    pub(crate) map: Arc<Mutex<HashMap<Language, Arc<Live>>>>,
    /// Held while a session starts, so two cells never start two sessions of one language.
    pub(crate) starting: Arc<tokio::sync::Mutex<()>>,
    /// Woken after a session's bridge sent a batch that ends a cell to the kernel child, so a
    /// `waitMs` caller looks again at once instead of at its next poll.
    pub(crate) cell_ended: Arc<tokio::sync::Notify>,
    /// The start attempts per language: which one was under way when a cell came, how it ended.
    pub(crate) starts: Arc<Mutex<super::start::StartBook>>,
    /// Held from a plot's move into the digest store until its record is sent, and by a sweep
    /// of evicted plots (see `store.rs`).
    pub(crate) store: Arc<tokio::sync::Mutex<()>>,
}

impl LiveSessions {
    pub(crate) fn get(&self, language: Language) -> Option<Arc<Live>> {
        lock(&self.map).get(&language).cloned()
    }

    /// Forgets `session_id` once it ended.
    pub(crate) fn forget(&self, language: Language, session_id: &str) {
        let mut m = lock(&self.map);
        if m.get(&language).is_some_and(|l| l.session_id == session_id) {
            m.remove(&language);
        }
    }
}

/// The program a session of `language` runs: a project-relative interpreter, else the service's.
pub(crate) fn program(
    runtime: &KernelRuntime,
    dir: &Path,
    language: Language,
    interpreter: Option<&str>,
) -> Option<PathBuf> {
    match interpreter {
        Some(i) => Some(dir.join(i)),
        None => match language {
            Language::R => runtime.rscript.clone(),
            Language::Python => runtime.python.clone(),
        },
    }
}

/// The program as sessions record it: project-relative when inside the project.
pub(crate) fn shown(program: &Path, dir: &Path) -> String {
    program
        .strip_prefix(dir)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| program.to_string_lossy().into_owned())
}

/// The runtime's language of ours.
pub(crate) fn rt_language(l: Language) -> rt::Language {
    match l {
        Language::R => rt::Language::R,
        Language::Python => rt::Language::Python,
    }
}

/// A session's end record.
pub(crate) fn session_ended(
    session_id: &str,
    reason: SessionEndReason,
    by: Option<String>,
    detail: Option<String>,
) -> KernelEvent {
    KernelEvent::SessionEnded {
        session_id: session_id.to_string(),
        end: SessionEnd {
            reason,
            by,
            at_ms: rho_plumbing::time::now_ms(),
            detail,
        },
    }
}

/// A cell that will not run: `not-run` with the reason.
pub(crate) fn not_run(cell_id: &str, reason: String) -> KernelEvent {
    KernelEvent::CellEnded {
        cell_id: cell_id.to_string(),
        end: CellEnd {
            outcome: Outcome::NotRun,
            by: None,
            at_ms: rho_plumbing::time::now_ms(),
            reason: Some(reason),
        },
        defined: Vec::new(),
        removed: None,
        variables: None,
    }
}
