//! The project's kernel entity: sessions and cells as a fold of the journal, and their recovery after a restart.

use super::contract::{
    CellEnd, CellState, CellView, Language, Outcome, OutputChunk, SessionEnd, SessionEndReason,
    SessionState, SessionView,
};
use super::decide::{decide, KernelCommand, KernelReply};
use super::events::KernelEvent;
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::{IdentityTable, InputDigest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A caller's cell identity: which cell its `changeId` named, with the input it came with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CellKey {
    pub digest: InputDigest,
    pub cell_id: String,
}

/// Every session and cell of one project (one entity per project).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct KernelEntity {
    /// Cells by arrival position (the order they run in within their session).
    pub(crate) cells: BTreeMap<u64, CellView>,
    /// Cell id -> arrival position.
    pub(crate) positions: BTreeMap<String, u64>,
    /// `(principal, changeId)` -> cell: kept after the cell is evicted, so it never runs twice.
    pub(crate) keys: BTreeMap<(String, String), CellKey>,
    /// Sessions in start order.
    pub(crate) sessions: Vec<SessionView>,
    /// The interpreter the project keeps per language.
    pub(crate) interpreters: BTreeMap<Language, String>,
    pub(crate) last_no: u64,
    /// Running cells someone asked to interrupt: cell id -> (who asked, when), until the cell ends.
    pub(crate) interrupts: BTreeMap<String, (String, i64)>,
    /// Unused: kernel.run's identity is per caller and lives in `keys`.
    identities: IdentityTable<KernelReply>,
}

impl KernelEntity {
    /// The cell with id `cell_id`.
    pub fn cell(&self, cell_id: &str) -> Option<&CellView> {
        self.positions.get(cell_id).and_then(|n| self.cells.get(n))
    }

    fn cell_mut(&mut self, cell_id: &str) -> Option<&mut CellView> {
        let n = self.positions.get(cell_id)?;
        self.cells.get_mut(n)
    }

    /// The session with id `session_id`.
    pub fn session(&self, session_id: &str) -> Option<&SessionView> {
        self.sessions.iter().find(|s| s.session_id == session_id)
    }

    fn session_mut(&mut self, session_id: &str) -> Option<&mut SessionView> {
        self.sessions
            .iter_mut()
            .find(|s| s.session_id == session_id)
    }

    /// The language's session that has not ended, if any.
    pub fn live_session(&self, language: Language) -> Option<&SessionView> {
        self.sessions
            .iter()
            .find(|s| s.language == language && s.state != SessionState::Ended)
    }

    /// Cells of `language` waiting to run, in arrival order.
    pub fn waiting(&self, language: Language) -> impl Iterator<Item = &CellView> {
        self.cells
            .values()
            .filter(move |c| c.language == language && c.state == CellState::Waiting)
    }

    /// The cells in arrival order.
    pub fn cells(&self) -> impl Iterator<Item = &CellView> {
        self.cells.values()
    }

    /// The sessions in start order.
    pub fn sessions(&self) -> &[SessionView] {
        &self.sessions
    }

    /// The interpreter the project keeps for `language`.
    pub fn interpreter(&self, language: Language) -> Option<&str> {
        self.interpreters.get(&language).map(String::as_str)
    }

    /// Who asked to interrupt the running cell `cell_id`, and when (ms), if anyone did.
    pub fn interrupt_asked(&self, cell_id: &str) -> Option<&(String, i64)> {
        self.interrupts.get(cell_id)
    }

    /// The cell a caller's `changeId` named, if any.
    pub fn key(&self, by: &str, change_id: &str) -> Option<&CellKey> {
        self.keys.get(&(by.to_string(), change_id.to_string()))
    }

    /// A copy of the sessions, the arrival counter, the interrupts asked and the one cell
    /// `cell_id` (no other cell): enough to apply a command's events and read that cell or the
    /// sessions after them.
    pub(crate) fn part(&self, cell_id: Option<&str>) -> KernelEntity {
        let mut part = KernelEntity {
            sessions: self.sessions.clone(),
            last_no: self.last_no,
            interrupts: self.interrupts.clone(),
            ..KernelEntity::default()
        };
        if let Some(c) = cell_id.and_then(|id| self.cell(id)) {
            part.positions.insert(c.cell_id.clone(), c.no);
            part.cells.insert(c.no, c.clone());
        }
        part
    }
}

/// Appends `chunks` to `output`, joining text of the same stream as the last chunk.
fn append(output: &mut Vec<OutputChunk>, chunks: &[OutputChunk]) {
    for c in chunks {
        match output.last_mut() {
            Some(last) if last.stream == c.stream => last.text.push_str(&c.text),
            _ => output.push(c.clone()),
        }
    }
}

impl Entity for KernelEntity {
    const KIND: &'static str = "kernel";
    type Event = KernelEvent;
    type Command = KernelCommand;
    type Reply = KernelReply;

    fn apply(&mut self, event: &KernelEvent, meta: &EventMeta) {
        match event {
            KernelEvent::CellQueued {
                cell_id,
                language,
                by,
                change_id,
                digest,
                purpose,
                code,
            } => {
                self.last_no += 1;
                let no = self.last_no;
                self.positions.insert(cell_id.clone(), no);
                self.keys.insert(
                    (by.clone(), change_id.clone()),
                    CellKey {
                        digest: *digest,
                        cell_id: cell_id.clone(),
                    },
                );
                self.cells.insert(
                    no,
                    CellView {
                        cell_id: cell_id.clone(),
                        no,
                        language: *language,
                        session_id: None,
                        by: by.clone(),
                        change_id: change_id.clone(),
                        purpose: purpose.clone(),
                        code: code.clone(),
                        state: CellState::Waiting,
                        queued_at_ms: meta.time_ms,
                        started_at_ms: None,
                        program: None,
                        version: None,
                        output: Vec::new(),
                        cut: false,
                        omitted_bytes: 0,
                        plots: Vec::new(),
                        notes: Vec::new(),
                        defined: Vec::new(),
                        removed: None,
                        end: None,
                    },
                );
            }
            KernelEvent::CellEvicted { cell_id } => {
                self.interrupts.remove(cell_id);
                if let Some(no) = self.positions.remove(cell_id) {
                    self.cells.remove(&no);
                }
            }
            KernelEvent::SessionStarting {
                session_id,
                language,
                program,
                interpreter,
            } => self.sessions.push(SessionView {
                session_id: session_id.clone(),
                language: *language,
                program: program.clone(),
                version: None,
                pid: None,
                state: SessionState::Starting,
                started_at_ms: meta.time_ms,
                runners: Vec::new(),
                interpreter: interpreter.clone(),
                variables: Vec::new(),
                variables_omitted: 0,
                end: None,
            }),
            KernelEvent::SessionStarted {
                session_id,
                pid,
                version,
            } => {
                if let Some(s) = self.session_mut(session_id) {
                    s.pid = Some(*pid);
                    s.version = Some(version.clone());
                    s.state = SessionState::Live;
                }
            }
            KernelEvent::CellStarted {
                cell_id,
                session_id,
            } => {
                let runner = self.cell(cell_id).map(|c| c.by.clone());
                let (mut program, mut version) = (None, None);
                if let Some(s) = self.session_mut(session_id) {
                    program = Some(s.program.clone());
                    version = s.version.clone();
                    if let Some(r) = runner.filter(|r| !s.runners.contains(r)) {
                        s.runners.push(r);
                    }
                }
                if let Some(c) = self.cell_mut(cell_id) {
                    c.state = CellState::Running;
                    c.session_id = Some(session_id.clone());
                    c.started_at_ms = Some(meta.time_ms);
                    c.program = program;
                    c.version = version;
                }
            }
            KernelEvent::InterruptAsked { cell_id, by } => {
                if self
                    .cell(cell_id)
                    .is_some_and(|c| c.state != CellState::Ended)
                {
                    self.interrupts
                        .entry(cell_id.clone())
                        .or_insert_with(|| (by.clone(), meta.time_ms));
                }
            }
            KernelEvent::CellOutput { cell_id, chunks } => {
                if let Some(c) = self.cell_mut(cell_id) {
                    append(&mut c.output, chunks);
                }
            }
            KernelEvent::CellCut {
                cell_id,
                omitted_bytes,
            } => {
                if let Some(c) = self.cell_mut(cell_id) {
                    c.cut = true;
                    c.omitted_bytes = *omitted_bytes;
                }
            }
            KernelEvent::CellPlot { cell_id, plot } => {
                if let Some(c) = self.cell_mut(cell_id) {
                    c.plots.push(plot.clone());
                }
            }
            KernelEvent::CellNote { cell_id, note } => {
                if let Some(c) = self.cell_mut(cell_id) {
                    c.notes.push(note.clone());
                }
            }
            KernelEvent::CellEnded {
                cell_id,
                end,
                defined,
                removed,
                variables,
            } => {
                let session = self.cell(cell_id).and_then(|c| c.session_id.clone());
                let asked = self.interrupts.remove(cell_id);
                if let Some(c) = self.cell_mut(cell_id) {
                    let mut end = end.clone();
                    // An interrupted cell names who asked, as journaled when they asked.
                    if end.outcome == Outcome::Interrupted && end.by.is_none() {
                        end.by = asked.map(|(by, _)| by);
                    }
                    c.state = CellState::Ended;
                    c.end = Some(end);
                    c.defined = defined.clone();
                    c.removed = removed.clone();
                }
                if let (Some(sid), Some((list, omitted))) = (session, variables) {
                    let cell = cell_id.clone();
                    let defined: std::collections::BTreeSet<&String> = defined.iter().collect();
                    if let Some(s) = self.session_mut(&sid) {
                        let before: BTreeMap<String, Option<String>> = s
                            .variables
                            .iter()
                            .map(|v| (v.name.clone(), v.cell_id.clone()))
                            .collect();
                        s.variables = list
                            .iter()
                            .map(|v| {
                                let mut v = v.clone();
                                v.cell_id = if defined.contains(&v.name) {
                                    Some(cell.clone())
                                } else {
                                    before.get(&v.name).cloned().flatten()
                                };
                                v
                            })
                            .collect();
                        s.variables_omitted = *omitted;
                    }
                }
            }
            KernelEvent::SessionEnded { session_id, end } => {
                if let Some(s) = self.session_mut(session_id) {
                    s.state = SessionState::Ended;
                    s.end = Some(end.clone());
                    s.pid = None;
                }
            }
            KernelEvent::SessionEvicted { session_id } => {
                self.sessions.retain(|s| &s.session_id != session_id);
            }
            KernelEvent::InterpreterKept { language, program } => {
                self.interpreters.insert(*language, program.clone());
            }
        }
    }

    fn decide(
        &self,
        command: &KernelCommand,
        ctx: &CommandContext,
    ) -> Result<Decision<KernelEvent, KernelReply>, ActorError> {
        decide(self, command, ctx)
    }

    fn identities(&self) -> &IdentityTable<KernelReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<KernelReply> {
        &mut self.identities
    }

    /// Rho closed: its sessions ended with it (`rho-closed`), a running cell is `unknown`, a
    /// waiting one `not-run`. Nothing runs again.
    fn reconcile(&self, now_ms: i64) -> Vec<KernelEvent> {
        let mut events = Vec::new();
        for c in self.cells.values() {
            let (outcome, mut reason) = match c.state {
                CellState::Ended => continue,
                CellState::Running => (Outcome::Unknown, "Rho closed while it ran".to_string()),
                CellState::Waiting => (Outcome::NotRun, "Rho closed before it ran".to_string()),
            };
            // An interrupt asked before the close is kept: who asked, and when.
            let asked = self.interrupts.get(&c.cell_id);
            if let Some((who, at)) = asked {
                reason.push_str(&format!(
                    "; {who} had asked to interrupt it at {at} ms, it had not ended"
                ));
            }
            events.push(KernelEvent::CellEnded {
                cell_id: c.cell_id.clone(),
                end: CellEnd {
                    outcome,
                    by: asked.map(|(who, _)| who.clone()),
                    at_ms: now_ms,
                    reason: Some(reason),
                },
                defined: Vec::new(),
                removed: None,
                variables: None,
            });
        }
        for s in self
            .sessions
            .iter()
            .filter(|s| s.state != SessionState::Ended)
        {
            events.push(KernelEvent::SessionEnded {
                session_id: s.session_id.clone(),
                end: SessionEnd {
                    reason: SessionEndReason::RhoClosed,
                    by: None,
                    at_ms: now_ms,
                    detail: None,
                },
            });
        }
        events
    }
}
