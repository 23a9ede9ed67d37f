//! The kernel entity's journal events: cells queued, started, printed, ended and evicted; sessions started and ended.

use super::contract::{CellEnd, Language, OutputChunk, PlotRecord, SessionEnd, Variable};
use super::places::PlaceEvent;
use crate::entity::EntityEvent;
use crate::identity::InputDigest;
use serde::{Deserialize, Serialize};

/// One event of the project's kernel entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelEvent {
    /// A cell joined its language's queue (`by` is the principal; `digest` its input).
    CellQueued {
        cell_id: String,
        language: Language,
        by: String,
        change_id: String,
        digest: InputDigest,
        purpose: Option<String>,
        code: String,
    },
    /// The oldest ended cell made room (maxCells); its plot files go with it.
    CellEvicted { cell_id: String },
    /// A session's process is being started with this program.
    SessionStarting {
        session_id: String,
        language: Language,
        program: String,
        interpreter: Option<String>,
    },
    /// The runner said ready.
    SessionStarted {
        session_id: String,
        pid: u32,
        version: String,
    },
    /// The session began running the cell.
    CellStarted { cell_id: String, session_id: String },
    /// Output printed by the cell, coalesced (consecutive text of one stream is one chunk).
    CellOutput {
        cell_id: String,
        chunks: Vec<OutputChunk>,
    },
    /// The cell passed maxOutputBytes; `omitted_bytes` is the count so far.
    CellCut { cell_id: String, omitted_bytes: u64 },
    /// A kept plot.
    CellPlot { cell_id: String, plot: PlotRecord },
    /// A fact said about the cell (a dropped plot, what a failed start printed).
    CellNote { cell_id: String, note: String },
    /// The cell ended; a session that listed its variables after it says so.
    CellEnded {
        cell_id: String,
        end: CellEnd,
        defined: Vec<String>,
        removed: Option<Vec<String>>,
        variables: Option<(Vec<Variable>, u64)>,
    },
    /// The session ended.
    SessionEnded { session_id: String, end: SessionEnd },
    /// The oldest ended session record went (maxEndedSessions).
    SessionEvicted { session_id: String },
    /// The project keeps this interpreter for the language's later sessions.
    InterpreterKept { language: Language, program: String },
    /// Someone asked to interrupt the running cell (journaled before its SIGINT). Last, so
    /// journals written before it keep their variant numbers.
    InterruptAsked { cell_id: String, by: String },
    /// Places: their definitions, checks, choices, copies, and where a session runs.
    Place(PlaceEvent),
}

impl EntityEvent for KernelEvent {
    fn kind(&self) -> &'static str {
        match self {
            KernelEvent::CellQueued { .. } => "kernel.cell-queued",
            KernelEvent::CellEvicted { .. } => "kernel.cell-evicted",
            KernelEvent::SessionStarting { .. } => "kernel.session-starting",
            KernelEvent::SessionStarted { .. } => "kernel.session-started",
            KernelEvent::CellStarted { .. } => "kernel.cell-started",
            KernelEvent::InterruptAsked { .. } => "kernel.interrupt-asked",
            KernelEvent::CellOutput { .. } => "kernel.cell-output",
            KernelEvent::CellCut { .. } => "kernel.cell-cut",
            KernelEvent::CellPlot { .. } => "kernel.cell-plot",
            KernelEvent::CellNote { .. } => "kernel.cell-note",
            KernelEvent::CellEnded { .. } => "kernel.cell-ended",
            KernelEvent::SessionEnded { .. } => "kernel.session-ended",
            KernelEvent::SessionEvicted { .. } => "kernel.session-evicted",
            KernelEvent::InterpreterKept { .. } => "kernel.interpreter-kept",
            KernelEvent::Place(e) => e.kind(),
        }
    }

    fn summary(&self) -> String {
        match self {
            KernelEvent::CellQueued {
                cell_id,
                language,
                by,
                code,
                ..
            } => format!(
                "cell {cell_id} queued ({}, by {by}, {} code bytes)",
                language.name(),
                code.len()
            ),
            KernelEvent::CellEvicted { cell_id } => format!("cell {cell_id} evicted"),
            KernelEvent::SessionStarting {
                session_id,
                language,
                program,
                ..
            } => format!(
                "session {session_id} starting ({} {program})",
                language.name()
            ),
            KernelEvent::SessionStarted {
                session_id,
                pid,
                version,
            } => format!("session {session_id} started (pid {pid}, {version})"),
            KernelEvent::CellStarted {
                cell_id,
                session_id,
            } => format!("cell {cell_id} started in session {session_id}"),
            KernelEvent::InterruptAsked { cell_id, by } => {
                format!("interrupt of cell {cell_id} asked by {by}")
            }
            KernelEvent::CellOutput { cell_id, chunks } => format!(
                "cell {cell_id} printed {} bytes",
                chunks.iter().map(|c| c.text.len()).sum::<usize>()
            ),
            KernelEvent::CellCut {
                cell_id,
                omitted_bytes,
            } => format!("cell {cell_id} output cut ({omitted_bytes} bytes omitted)"),
            KernelEvent::CellPlot { cell_id, plot } => {
                format!("cell {cell_id} plot {} ({} bytes)", plot.digest, plot.bytes)
            }
            KernelEvent::CellNote { cell_id, .. } => format!("cell {cell_id} note"),
            KernelEvent::CellEnded { cell_id, end, .. } => {
                format!("cell {cell_id} ended {:?}", end.outcome)
            }
            KernelEvent::SessionEnded { session_id, end } => {
                format!("session {session_id} ended {:?}", end.reason)
            }
            KernelEvent::SessionEvicted { session_id } => {
                format!("session {session_id} evicted")
            }
            KernelEvent::InterpreterKept { language, program } => {
                format!("{} interpreter {program} kept", language.name())
            }
            KernelEvent::Place(e) => e.summary(),
        }
    }
}
