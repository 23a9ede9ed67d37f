//! The bridge from a session's events to the journal: output coalesced per batch, plots kept by digest, ends, and the session's exit.

use super::contract::{
    CellEnd, Outcome, OutputChunk, PlotRecord, SessionEndReason, Stream, Variable,
};
use super::decide::KernelCommand;
use super::entity::KernelEntity;
use super::events::KernelEvent;
use super::live::{lock, not_run, session_ended, Live, LiveSessions};
use super::store::keep_plot;
use crate::child::{EntityActor, Execute};
use crate::entity::CommandContext;
use crate::events::EventBus;
use actix::prelude::*;
use rho_kernels::notebook::{self as rt, SessionEvent};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, TryRecvError};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Journals what a session reports as Rho's own records and announces `kernel.changed`.
#[derive(Clone)]
pub(crate) struct Recorder {
    pub child: Addr<EntityActor<KernelEntity>>,
    pub events: Option<EventBus>,
    pub project_id: uuid::Uuid,
    /// Where kept plots live by digest (`.rho/plugins/kernel/plots/`).
    pub plots: PathBuf,
    /// Where session folders are (`.rho/plugins/kernel/sessions/`).
    pub sessions: PathBuf,
    /// maxEndedSessions: the oldest ended session records go past it.
    pub max_ended_sessions: u64,
}

impl Recorder {
    /// Sends `events` as one journal batch (in the order of the calls: one mailbox).
    pub(crate) fn record(&self, events: Vec<KernelEvent>) {
        if events.is_empty() {
            return;
        }
        let cells: Vec<String> = events.iter().filter_map(cell_of).collect();
        let sessions: Vec<String> = events.iter().filter_map(session_of).collect();
        self.child.do_send(Execute::<KernelEntity> {
            command: KernelCommand::Record {
                events,
                max_ended_sessions: self.max_ended_sessions,
            },
            ctx: CommandContext::now(crate::Principal::System),
        });
        if let Some(bus) = &self.events {
            let mut seen = std::collections::BTreeSet::new();
            for c in cells.into_iter().filter(|c| seen.insert(c.clone())) {
                bus.publish(
                    "kernel.changed",
                    Some(self.project_id),
                    serde_json::json!({ "cellId": c }),
                );
            }
            // A session that ended (or started) with no cell of its own in the batch: a browser
            // re-reads the sessions.
            for id in sessions {
                bus.publish(
                    "kernel.changed",
                    Some(self.project_id),
                    serde_json::json!({ "sessionId": id }),
                );
            }
        }
    }
}

fn cell_of(e: &KernelEvent) -> Option<String> {
    match e {
        KernelEvent::CellStarted { cell_id, .. }
        | KernelEvent::CellOutput { cell_id, .. }
        | KernelEvent::CellCut { cell_id, .. }
        | KernelEvent::CellPlot { cell_id, .. }
        | KernelEvent::CellNote { cell_id, .. }
        | KernelEvent::CellEnded { cell_id, .. } => Some(cell_id.clone()),
        _ => None,
    }
}

fn session_of(e: &KernelEvent) -> Option<String> {
    match e {
        KernelEvent::SessionStarted { session_id, .. }
        | KernelEvent::SessionEnded { session_id, .. } => Some(session_id.clone()),
        _ => None,
    }
}

/// A cell's end record with nothing listed.
pub(crate) fn ended(
    cell_id: &str,
    outcome: Outcome,
    by: Option<String>,
    reason: Option<String>,
) -> KernelEvent {
    KernelEvent::CellEnded {
        cell_id: cell_id.to_string(),
        end: CellEnd {
            outcome,
            by,
            at_ms: rho_plumbing::time::now_ms(),
            reason,
        },
        defined: Vec::new(),
        removed: None,
        variables: None,
    }
}

fn stream(s: rt::Stream) -> Stream {
    match s {
        rt::Stream::Stdout => Stream::Stdout,
        rt::Stream::Stderr => Stream::Stderr,
        rt::Stream::Message => Stream::Message,
        rt::Stream::Warning => Stream::Warning,
        rt::Stream::Error => Stream::Error,
    }
}

/// How long output without an end is held for what follows it (decision 0515).
const HOLD: Duration = Duration::from_millis(5);
/// Events in one journal batch at most.
const BATCH: usize = 512;

/// Whether `e` ends something a caller waits for (a cell, the process, a reading).
fn ends(e: &SessionEvent) -> bool {
    matches!(
        e,
        SessionEvent::CellEnded { .. } | SessionEvent::Exited { .. } | SessionEvent::ReadingEnded
    )
}

/// `first` and every event ready after it; output is held up to [`HOLD`] for what follows,
/// so a cell's last output and its end (its listing takes a few ms) are one journal write
/// instead of two in a row. An end is never held.
fn gather(rx: &Receiver<SessionEvent>, first: SessionEvent) -> Vec<SessionEvent> {
    let until = Instant::now() + HOLD;
    let mut batch = vec![first];
    while batch.len() < BATCH && !batch.last().is_some_and(ends) {
        let next = match rx.try_recv() {
            Ok(e) => Some(e),
            Err(TryRecvError::Disconnected) => None,
            Err(TryRecvError::Empty) => {
                let left = until.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    None
                } else {
                    rx.recv_timeout(left).ok()
                }
            }
        };
        match next {
            Some(e) => batch.push(e),
            None => break,
        }
    }
    // Whatever else is ready joins the batch, after an end too.
    while batch.len() < BATCH {
        match rx.try_recv() {
            Ok(e) => batch.push(e),
            Err(_) => break,
        }
    }
    batch
}

/// Runs on its own thread for the session's life: each batch of what is ready becomes one
/// journal batch (consecutive output of a cell is one `kernel.cell-output`).
pub(crate) fn run(live: Arc<Live>, sessions: LiveSessions, rx: Receiver<SessionEvent>) {
    let mut ids: HashMap<u64, String> = HashMap::new();
    // The pages each cell kept, in order: a plot's index in its cell is its place here.
    let mut kept: HashMap<u64, Vec<u32>> = HashMap::new();
    while let Ok(first) = rx.recv() {
        let batch = gather(&rx, first);
        // A sweep of evicted plots waits until this batch's plot records are sent.
        let _store = batch
            .iter()
            .any(|e| matches!(e, SessionEvent::Plot { .. }))
            .then(|| sessions.store.blocking_lock());
        let mut out: Vec<KernelEvent> = Vec::new();
        let mut pending: Option<(String, Vec<OutputChunk>)> = None;
        let mut free = false;
        let mut exited = false;
        for e in batch {
            let cell = match &e {
                SessionEvent::Output { cell, .. }
                | SessionEvent::OutputCut { cell, .. }
                | SessionEvent::Plot { cell, .. }
                | SessionEvent::PlotDropped { cell, .. }
                | SessionEvent::CellEnded { cell, .. } => Some(*cell),
                SessionEvent::Exited { .. } | SessionEvent::ReadingEnded => None,
            };
            let cell_id = cell.map(|no| {
                ids.entry(no)
                    .or_insert_with(|| {
                        let p = lock(&live.pump);
                        p.running
                            .as_ref()
                            .filter(|q| q.no == no)
                            .map(|q| q.cell_id.clone())
                            .unwrap_or_else(|| format!("cell-no-{no}"))
                    })
                    .clone()
            });
            if let SessionEvent::Output {
                stream: s, text, ..
            } = &e
            {
                let id = cell_id.clone().unwrap_or_default();
                match &mut pending {
                    Some((c, chunks)) if *c == id => chunks.push(OutputChunk {
                        stream: stream(*s),
                        text: text.clone(),
                    }),
                    _ => {
                        if let Some((c, chunks)) = pending.take() {
                            out.push(KernelEvent::CellOutput { cell_id: c, chunks });
                        }
                        pending = Some((
                            id,
                            vec![OutputChunk {
                                stream: stream(*s),
                                text: text.clone(),
                            }],
                        ));
                    }
                }
                continue;
            }
            if let Some((c, chunks)) = pending.take() {
                out.push(KernelEvent::CellOutput { cell_id: c, chunks });
            }
            let id = cell_id.unwrap_or_default();
            match e {
                SessionEvent::Output { .. } => {}
                SessionEvent::OutputCut { omitted_bytes, .. } => out.push(KernelEvent::CellCut {
                    cell_id: id,
                    omitted_bytes,
                }),
                SessionEvent::Plot { plot, .. } => match keep_plot(&live.recorder.plots, &plot) {
                    Ok(()) => {
                        let replaces = plot.replaces.and_then(|r| {
                            let index = kept.get(&r.cell)?.iter().position(|p| *p == r.page)?;
                            Some(format!("{}#{index}", ids.get(&r.cell)?))
                        });
                        if let Some(no) = cell {
                            kept.entry(no).or_default().push(plot.page);
                        }
                        out.push(KernelEvent::CellPlot {
                            cell_id: id,
                            plot: PlotRecord {
                                page: plot.page,
                                digest: format!("sha256:{}", plot.sha256),
                                bytes: plot.bytes,
                                replaces,
                            },
                        })
                    }
                    Err(err) => out.push(KernelEvent::CellNote {
                        cell_id: id,
                        note: format!("plot page {} was not kept: {err}", plot.page),
                    }),
                },
                SessionEvent::PlotDropped { note, .. } => {
                    out.push(KernelEvent::CellNote { cell_id: id, note })
                }
                // A reading the session was busy with ended (also one given up on): a cell
                // queued meanwhile starts now.
                SessionEvent::ReadingEnded => free = true,
                SessionEvent::CellEnded {
                    outcome,
                    variables,
                    defined,
                    removed,
                    ..
                } => {
                    let mut p = lock(&live.pump);
                    // Who asked to interrupt is the journal's (kernel.interrupt-asked).
                    let (outcome, by) = match outcome {
                        rt::CellOutcome::Done => (Outcome::Done, None),
                        rt::CellOutcome::Error => (Outcome::Error, None),
                        rt::CellOutcome::Interrupted => (Outcome::Interrupted, None),
                    };
                    p.running = None;
                    free = true;
                    out.push(KernelEvent::CellEnded {
                        cell_id: id,
                        end: CellEnd {
                            outcome,
                            by,
                            at_ms: rho_plumbing::time::now_ms(),
                            reason: None,
                        },
                        defined,
                        removed,
                        variables: Some((
                            variables
                                .list
                                .into_iter()
                                .map(|v| Variable {
                                    name: v.name,
                                    kind: v.type_name,
                                    size: v.size,
                                    summary: v.summary,
                                    cell_id: None,
                                })
                                .collect(),
                            variables.omitted,
                        )),
                    });
                }
                SessionEvent::Exited {
                    status,
                    printed_tail,
                } => {
                    let mut p = lock(&live.pump);
                    p.ended = true;
                    let by = p.stop_by.clone();
                    let note = format!("the session ended ({status})");
                    if let Some(r) = p.running.take() {
                        out.push(ended(
                            &r.cell_id,
                            Outcome::Error,
                            by.clone(),
                            Some(note.clone()),
                        ));
                    }
                    for (q, _) in p.queue.drain(..) {
                        out.push(not_run(&q.cell_id, note.clone()));
                    }
                    let reason = if by.is_some() {
                        SessionEndReason::Stopped
                    } else {
                        SessionEndReason::Exited
                    };
                    let tail: String = printed_tail
                        .chars()
                        .rev()
                        .take(2000)
                        .collect::<Vec<_>>()
                        .into_iter()
                        .rev()
                        .collect();
                    out.push(session_ended(
                        &live.session_id,
                        reason,
                        by,
                        Some(format!("{status}; {tail}")),
                    ));
                    exited = true;
                }
            }
        }
        if let Some((c, chunks)) = pending.take() {
            out.push(KernelEvent::CellOutput { cell_id: c, chunks });
        }
        let ends = out
            .iter()
            .any(|e| matches!(e, KernelEvent::CellEnded { .. }));
        live.recorder.record(out);
        drop(_store);
        if ends {
            // After the records are in the child's mailbox: a peek queued now sees them.
            sessions.cell_ended.notify_waiters();
        }
        if exited {
            sessions.forget(live.language, &live.session_id);
            // The batch that ended this session may have evicted the oldest ended ones.
            super::store::sweep_sessions_blocking(&live.recorder);
            return;
        }
        if free {
            live.pump();
        }
    }
}
