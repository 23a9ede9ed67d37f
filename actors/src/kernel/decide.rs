//! The kernel entity's decisions: a cell's identity per caller and its limits, interrupting a waiting cell, the interpreter rule.

use super::contract::{CellEnd, CellState, CellView, Language, Outcome, SessionState, SessionView};
use super::entity::KernelEntity;
use super::events::KernelEvent;
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::InputDigest;
use serde::{Deserialize, Serialize};

/// The limits a queued cell is checked against (from `kernel` in `--limits`).
#[derive(Debug, Clone, Copy)]
pub struct QueueLimits {
    pub max_queued: u64,
    pub max_code_bytes: u64,
    pub max_cells: u64,
}

/// A command to the kernel entity.
#[derive(Debug, Clone)]
pub enum KernelCommand {
    /// `kernel.run`'s journal step: a new cell joins its language's queue (`cell_id` is fresh).
    Queue {
        cell_id: String,
        language: Language,
        code: String,
        change_id: String,
        digest: InputDigest,
        purpose: Option<String>,
        limits: QueueLimits,
        /// The live session this cell may start in at once (its slot is held for it): when
        /// that session is live and no cell of the language runs or waits, the cell's start is
        /// journaled with its arrival, one durable write before it runs (decision 0515).
        start_in: Option<String>,
    },
    /// `kernel.interrupt`'s journal step.
    Interrupt { cell_id: String },
    /// What a session reported (output, plots, ends), journaled as it says (Rho's own principal);
    /// past `max_ended_sessions` ended sessions, the oldest ended session records go with it.
    Record {
        events: Vec<KernelEvent>,
        max_ended_sessions: u64,
    },
}

/// What the kernel entity answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KernelReply {
    /// The cell as it stands (after this command).
    Cell(CellView),
    /// The cell runs: its session must be sent SIGINT (the end is journaled when it reports).
    Signal(CellView),
    /// The records were journaled.
    Recorded,
}

/// The principal's wire name, as cells record it in `by`.
pub fn by(ctx: &CommandContext) -> String {
    ctx.principal.to_string()
}

/// The sessions, the arrival counter and the cell `cell_id` (when it exists) with `events`
/// applied: what a reply built in `decide` needs, without copying every cell's output (a
/// `kernel.run` must not cost the whole notebook's size).
fn after(
    state: &KernelEntity,
    events: &[KernelEvent],
    ctx: &CommandContext,
    cell_id: Option<&str>,
) -> KernelEntity {
    let mut next = state.part(cell_id);
    let meta = EventMeta {
        seq: 0,
        entity_seq: 0,
        time_ms: ctx.time_ms,
        principal: by(ctx),
    };
    for e in events {
        next.apply(e, &meta);
    }
    next
}

fn missing(cell_id: &str) -> ActorError {
    ActorError::NotFound {
        what: format!("cell {cell_id}"),
    }
}

/// Decides `command` against `state` (pure: no I/O, no clock).
pub(crate) fn decide(
    state: &KernelEntity,
    command: &KernelCommand,
    ctx: &CommandContext,
) -> Result<Decision<KernelEvent, KernelReply>, ActorError> {
    match command {
        KernelCommand::Queue {
            cell_id,
            language,
            code,
            change_id,
            digest,
            purpose,
            limits,
            start_in,
        } => {
            let by = by(ctx);
            if let Some(key) = state.key(&by, change_id) {
                if &key.digest != digest {
                    return Err(ActorError::conflict(format!(
                        "changeId {change_id:?} already named a cell with a different input"
                    )));
                }
                // The same identity is the same cell; never run twice.
                return match state.cell(&key.cell_id) {
                    Some(c) => Ok(Decision {
                        events: Vec::new(),
                        reply: KernelReply::Cell(c.clone()),
                    }),
                    None => Err(ActorError::NotFound {
                        what: format!(
                            "cell {} of changeId {change_id:?} (evicted: kernel.maxCells)",
                            key.cell_id
                        ),
                    }),
                };
            }
            if code.len() as u64 > limits.max_code_bytes {
                return Err(ActorError::invalid(
                    "code",
                    format!(
                        "{} bytes of code; kernel.maxCodeBytes is {}",
                        code.len(),
                        limits.max_code_bytes
                    ),
                ));
            }
            if state.waiting(*language).count() as u64 >= limits.max_queued {
                return Err(ActorError::Limit {
                    limit: "kernel.maxQueued".to_string(),
                    value: limits.max_queued,
                });
            }
            let mut events = Vec::new();
            if state.cells().count() as u64 >= limits.max_cells {
                let oldest = state.cells().find(|c| c.state == CellState::Ended).ok_or(
                    ActorError::Limit {
                        limit: "kernel.maxCells".to_string(),
                        value: limits.max_cells,
                    },
                )?;
                events.push(KernelEvent::CellEvicted {
                    cell_id: oldest.cell_id.clone(),
                });
            }
            events.push(KernelEvent::CellQueued {
                cell_id: cell_id.clone(),
                language: *language,
                by,
                change_id: change_id.clone(),
                digest: *digest,
                purpose: purpose.clone(),
                code: code.clone(),
            });
            if let Some(sid) = start_in.as_ref().filter(|sid| free(state, *language, sid)) {
                events.push(KernelEvent::CellStarted {
                    cell_id: cell_id.clone(),
                    session_id: sid.clone(),
                });
            }
            let next = after(state, &events, ctx, Some(cell_id));
            let cell = next
                .cell(cell_id)
                .cloned()
                .ok_or_else(|| missing(cell_id))?;
            Ok(Decision {
                events,
                reply: KernelReply::Cell(cell),
            })
        }
        KernelCommand::Interrupt { cell_id } => {
            let cell = state.cell(cell_id).ok_or_else(|| missing(cell_id))?;
            match cell.state {
                CellState::Ended => Ok(Decision {
                    events: Vec::new(),
                    reply: KernelReply::Cell(cell.clone()),
                }),
                // Who asked is durable before the SIGINT (the first asker is the one kept).
                CellState::Running => Ok(Decision {
                    events: match state.interrupt_asked(cell_id) {
                        Some(_) => Vec::new(),
                        None => vec![KernelEvent::InterruptAsked {
                            cell_id: cell_id.clone(),
                            by: by(ctx),
                        }],
                    },
                    reply: KernelReply::Signal(cell.clone()),
                }),
                CellState::Waiting => {
                    let events = vec![KernelEvent::CellEnded {
                        cell_id: cell_id.clone(),
                        end: CellEnd {
                            outcome: Outcome::NotRun,
                            by: Some(by(ctx)),
                            at_ms: ctx.time_ms,
                            reason: Some("interrupted while waiting".to_string()),
                        },
                        defined: Vec::new(),
                        removed: None,
                        variables: None,
                    }];
                    let next = after(state, &events, ctx, Some(cell_id));
                    let cell = next
                        .cell(cell_id)
                        .cloned()
                        .ok_or_else(|| missing(cell_id))?;
                    Ok(Decision {
                        events,
                        reply: KernelReply::Cell(cell),
                    })
                }
            }
        }
        KernelCommand::Record {
            events,
            max_ended_sessions,
        } => {
            let mut events = events.clone();
            let evicted = evictions(state, &events, *max_ended_sessions, ctx);
            events.extend(evicted);
            Ok(Decision {
                events,
                reply: KernelReply::Recorded,
            })
        }
    }
}

/// Whether `session_id` is `language`'s live session and no cell of the language runs or
/// waits in the record: a new cell is the next to run there.
fn free(state: &KernelEntity, language: Language, session_id: &str) -> bool {
    state
        .live_session(language)
        .is_some_and(|s| s.session_id == session_id && s.state == SessionState::Live)
        && !state
            .cells()
            .any(|c| c.language == language && c.state != CellState::Ended)
}

/// maxEndedSessions: the records of the sessions that ended first go, once `events` would
/// leave more than `max` ended sessions.
fn evictions(
    state: &KernelEntity,
    events: &[KernelEvent],
    max: u64,
    ctx: &CommandContext,
) -> Vec<KernelEvent> {
    if !events
        .iter()
        .any(|e| matches!(e, KernelEvent::SessionEnded { .. }))
    {
        return Vec::new();
    }
    let next = after(state, events, ctx, None);
    let mut ended: Vec<&SessionView> = next
        .sessions()
        .iter()
        .filter(|s| s.state == SessionState::Ended)
        .collect();
    let excess = ended
        .len()
        .saturating_sub(usize::try_from(max).unwrap_or(usize::MAX));
    // Stable: sessions that ended at the same ms go in start order.
    ended.sort_by_key(|s| s.end.as_ref().map_or(i64::MIN, |e| e.at_ms));
    ended
        .into_iter()
        .take(excess)
        .map(|s| KernelEvent::SessionEvicted {
            session_id: s.session_id.clone(),
        })
        .collect()
}

/// Where a cell of `language` runs, by the interpreter rule.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionPlan {
    /// Join the live session.
    Join { session_id: String },
    /// Start a session with this program (the project's kept interpreter, or the service's).
    Start { interpreter: Option<String> },
    /// End the live session (only `caller` ran cells in it) and start one with `interpreter`.
    Restart {
        session_id: String,
        interpreter: String,
    },
}

/// The interpreter rule: a named interpreter is kept for the language's later sessions; a live
/// session with another program in which only `caller` ran cells starts again with it, one
/// where anyone else ran a cell refuses the cell (`conflict`).
pub fn plan_session(
    state: &KernelEntity,
    language: Language,
    caller: &str,
    interpreter: Option<&str>,
) -> Result<SessionPlan, ActorError> {
    let kept = state.interpreter(language);
    let wanted = interpreter.or(kept);
    let Some(live) = state.live_session(language) else {
        return Ok(SessionPlan::Start {
            interpreter: wanted.map(str::to_string),
        });
    };
    match interpreter {
        Some(i) if live.interpreter.as_deref() != Some(i) => {
            if only_caller_ran(live, caller) {
                Ok(SessionPlan::Restart {
                    session_id: live.session_id.clone(),
                    interpreter: i.to_string(),
                })
            } else {
                Err(ActorError::conflict(format!(
                    "the live {} session {} has cells run by others; it cannot start again with {i} (kernel.stop it first)",
                    language.name(),
                    live.session_id
                )))
            }
        }
        _ => Ok(SessionPlan::Join {
            session_id: live.session_id.clone(),
        }),
    }
}

fn only_caller_ran(session: &SessionView, caller: &str) -> bool {
    session.state != SessionState::Ended && session.runners.iter().all(|r| r == caller)
}
