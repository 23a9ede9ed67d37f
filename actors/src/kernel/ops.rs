//! The kernel.* operations on a project's kernel handle: validation, the caller's identity, the page of a read, and what this build cannot do yet.

use super::contract::CellState;
use super::contract::Language;
use super::contract::{
    CellRequest, CellView, InspectAnswer, InspectReply, InspectRequest, InterpreterView, PlotReply,
    PlotRequest, ReadReply, ReadRequest, RunRequest, SessionState, SessionView, StopRequest,
};
use super::decide::{by, plan_session, KernelCommand, KernelReply, QueueLimits, SessionPlan};
use super::entity::KernelEntity;
use super::handlers::KernelHandle;
use super::live::{lock, not_run, Handed, Queued};
use super::start::session_for;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::identity::input_digest;
use rho_kernels::notebook as rt;

/// Cells on one `kernel.read` page (default and maximum).
pub const READ_PAGE: u32 = 100;

/// How often a `waitMs` caller looks at its cell when nothing woke it.
const POLL_MS: u64 = 20;

/// Rows a reading may ask for.
pub const INSPECT_ROWS_MAX: u32 = 200;

/// Checks a `kernel.run` request against its limits (no state needed).
pub fn validate_run(req: &RunRequest, handle: &KernelHandle) -> Result<(), ActorError> {
    if req.change_id.is_empty() || req.change_id.len() > 128 {
        return Err(ActorError::invalid(
            "changeId",
            "a changeId has 1 to 128 bytes",
        ));
    }
    let max = handle.limits().max_code_bytes;
    if req.code.len() as u64 > max {
        return Err(ActorError::invalid(
            "code",
            format!(
                "{} bytes of code; kernel.maxCodeBytes is {max}",
                req.code.len()
            ),
        ));
    }
    if let Some(i) = &req.interpreter {
        // A program in a folder of the project; it may be a link out of it (a venv's python).
        crate::paths::components("interpreter", i)?;
        if !handle.dir().join(i).is_file() {
            return Err(ActorError::invalid(
                "interpreter",
                format!("{i:?} is not a program in the project"),
            ));
        }
    }
    Ok(())
}

/// `kernel.run`: the caller's identity first (the same one returns its cell, a different body
/// conflicts), then the owner gate and the interpreter rule; the cell is journaled, joins its
/// language's session (started when none is live) and is waited for up to `waitMs`.
pub async fn run(
    handle: &KernelHandle,
    req: &RunRequest,
    ctx: &CommandContext,
) -> Result<CellView, ActorError> {
    validate_run(req, handle)?;
    // How long a caller waits is not the cell's input.
    let digest = input_digest(
        &RunRequest {
            wait_ms: None,
            ..req.clone()
        },
        "changeId",
    );
    let (caller, change) = (by(ctx), req.change_id.clone());
    let (language, wanted) = (req.language, req.interpreter.clone());
    let max_cells = handle.limits().max_cells;
    // One look at the entity: the caller's identity, and where a new cell would run by the
    // interpreter rule (used only after the identity and the owner gate, in that order).
    let (known, plan) = handle
        .read(move |k: &KernelEntity| {
            let known = k
                .key(&caller, &change)
                .map(|key| (key.digest, k.cell(&key.cell_id).cloned()));
            let plan = plan_session(k, language, &caller, wanted.as_deref())
                .map(|p| (p, evicts_plots(k, max_cells)));
            (known, plan)
        })
        .await?;
    let caller = by(ctx);
    match known {
        Some((d, _)) if d != digest => {
            return Err(ActorError::conflict(format!(
                "changeId {:?} already named a cell with a different input",
                req.change_id
            )))
        }
        Some((_, Some(cell))) => return wait(handle, cell, req.wait_ms).await,
        Some((_, None)) => {
            return Err(ActorError::NotFound {
                what: format!(
                    "the cell of changeId {:?} (evicted: kernel.maxCells)",
                    req.change_id
                ),
            })
        }
        None => handle.gate(ctx)?,
    }
    let (plan, evicts_plots) = plan?;
    let cell_id = uuid::Uuid::new_v4().to_string();
    // A live session with nothing to do: its slot is held for this cell, whose start is then
    // journaled with its arrival (one durable write before it runs; decision 0515).
    let held = match &plan {
        SessionPlan::Join { session_id } => handle
            .live
            .get(language)
            .filter(|l| &l.session_id == session_id && l.reserve(&cell_id)),
        _ => None,
    };
    let l = handle.limits();
    let command = KernelCommand::Queue {
        cell_id: cell_id.clone(),
        language,
        code: req.code.clone(),
        change_id: req.change_id.clone(),
        digest,
        purpose: req.purpose.clone(),
        limits: QueueLimits {
            max_queued: l.max_queued,
            max_code_bytes: l.max_code_bytes,
            max_cells: l.max_cells,
        },
        start_in: held.as_ref().map(|l| l.session_id.clone()),
    };
    let queued = handle.command(command, ctx.clone()).await;
    let cell = match queued {
        Ok(KernelReply::Cell(cell)) => cell,
        other => {
            if let Some(live) = &held {
                live.release(&cell_id);
            }
            return match other {
                Err(e) => Err(e),
                Ok(_) => Err(ActorError::internal("kernel.run queued no cell")),
            };
        }
    };
    if evicts_plots {
        let h = handle.clone();
        actix::spawn(async move { super::store::sweep_plots(&h).await });
    }
    if let Some(live) = held {
        let started = cell.cell_id == cell_id
            && cell.state == CellState::Running
            && cell.session_id.as_deref() == Some(live.session_id.as_str());
        if started {
            if let Handed::Refused(why) = live.run_reserved(cell.no, &cell.cell_id, &req.code) {
                refused(handle, &cell.cell_id, why).await?;
            }
            return wait(handle, cell, req.wait_ms).await;
        }
        live.release(&cell_id);
    }
    match session_for(handle, language, &caller, req.interpreter.as_deref()).await {
        Ok(live) => live.enqueue(
            Queued {
                no: cell.no,
                cell_id: cell.cell_id.clone(),
            },
            req.code.clone(),
        ),
        Err(reason) => {
            let events = vec![not_run(
                &cell.cell_id,
                format!("the {} session did not start: {reason}", language.name()),
            )];
            handle
                .command(
                    KernelCommand::Record {
                        events,
                        max_ended_sessions: handle.limits().max_ended_sessions,
                    },
                    CommandContext::now(crate::Principal::System),
                )
                .await?;
        }
    }
    wait(handle, cell, req.wait_ms).await
}

/// maxCells: whether a new cell evicts the oldest ended one and that one kept plots ("the
/// oldest ended cell and its plots make room").
fn evicts_plots(k: &KernelEntity, max_cells: u64) -> bool {
    k.cells().count() as u64 >= max_cells
        && k.cells()
            .find(|c| c.state == CellState::Ended)
            .is_some_and(|c| !c.plots.is_empty())
}

/// A cell journaled as started that the session did not take ends `error` with why (unless
/// the session's end already ended it).
async fn refused(handle: &KernelHandle, cell_id: &str, why: String) -> Result<(), ActorError> {
    let probe = cell_id.to_string();
    let ended = handle
        .peek(move |k: &KernelEntity| k.cell(&probe).is_none_or(|c| c.state == CellState::Ended))
        .await?;
    if !ended {
        let events = vec![super::bridge::ended(
            cell_id,
            super::contract::Outcome::Error,
            None,
            Some(why),
        )];
        handle
            .command(
                KernelCommand::Record {
                    events,
                    max_ended_sessions: handle.limits().max_ended_sessions,
                },
                CommandContext::now(crate::Principal::System),
            )
            .await?;
    }
    handle.live.cell_ended.notify_waiters();
    Ok(())
}

/// The cell as it stands once it ended or `wait_ms` (at most `maxWaitMs`) passed; what it
/// answers is durable.
async fn wait(
    handle: &KernelHandle,
    cell: CellView,
    wait_ms: Option<u64>,
) -> Result<CellView, ActorError> {
    let limit = wait_ms.unwrap_or(0).min(handle.limits().max_wait_ms);
    let deadline = std::time::Instant::now() + std::time::Duration::from_millis(limit);
    let id = cell.cell_id.clone();
    loop {
        // Registered before the look, so an end reported between the two still wakes it.
        let woken = handle.live.cell_ended.notified();
        let mut woken = std::pin::pin!(woken);
        woken.as_mut().enable();
        let probe = id.clone();
        let (now_cell, seq) = handle
            .look(move |k: &KernelEntity| k.cell(&probe).cloned())
            .await?;
        let ended = now_cell
            .as_ref()
            .is_none_or(|c| c.state == CellState::Ended);
        let now = std::time::Instant::now();
        if ended || now >= deadline {
            // The answer is what was journaled when it looked, once that is durable.
            handle.durable(seq).await?;
            return Ok(now_cell.unwrap_or(cell));
        }
        // Woken when a session's bridge or kernel.interrupt ended a cell; an end journaled
        // elsewhere (a session that did not start) is seen at the next poll.
        let poll = (deadline - now).min(std::time::Duration::from_millis(POLL_MS));
        let _ = tokio::time::timeout(poll, woken).await;
    }
}

/// `kernel.read`: sessions, interpreters and one page of cells in arrival order.
pub fn read_page(k: &KernelEntity, req: &ReadRequest) -> Result<ReadReply, ActorError> {
    let limit = req.limit.unwrap_or(READ_PAGE);
    if limit == 0 || limit > READ_PAGE {
        return Err(ActorError::invalid(
            "limit",
            format!("a page has 1 to {READ_PAGE} cells"),
        ));
    }
    let cells: Vec<CellView> = match &req.cell_id {
        Some(id) => vec![k.cell(id).cloned().ok_or_else(|| ActorError::NotFound {
            what: format!("cell {id}"),
        })?],
        None => k
            .cells()
            .filter(|c| c.no > req.after)
            .take(limit as usize + 1)
            .cloned()
            .collect(),
    };
    let (cells, next) = if cells.len() > limit as usize {
        let page: Vec<CellView> = cells.into_iter().take(limit as usize).collect();
        let next = page.last().map(|c| c.no);
        (page, next)
    } else {
        (cells, None)
    };
    Ok(ReadReply {
        sessions: k.sessions().to_vec(),
        cells,
        next,
        interpreters: [
            super::contract::Language::R,
            super::contract::Language::Python,
        ]
        .into_iter()
        .filter_map(|l| {
            k.interpreter(l).map(|p| InterpreterView {
                language: l,
                program: p.to_string(),
            })
        })
        .collect(),
    })
}

/// `kernel.inspect`: `none` without a live session (it never starts one).
pub async fn inspect(
    handle: &KernelHandle,
    req: &InspectRequest,
) -> Result<InspectReply, ActorError> {
    if req.path.is_empty() {
        return Err(ActorError::invalid("path", "name a value"));
    }
    if req.rows.is_some_and(|r| r == 0 || r > INSPECT_ROWS_MAX) {
        return Err(ActorError::invalid(
            "rows",
            format!("a page has 1 to {INSPECT_ROWS_MAX} rows"),
        ));
    }
    let language = req.language;
    let Some(live) = handle.live.get(language) else {
        return Ok(answer(
            InspectAnswer::None,
            Some(format!("no live {} session", language.name())),
        ));
    };
    if !live.begin_reading() {
        return Ok(answer(
            InspectAnswer::Busy,
            Some("a cell runs or waits".into()),
        ));
    }
    let request = rt::InspectRequest {
        name_or_path: req.path.clone(),
        offset: req.offset,
        rows: req.rows.unwrap_or(0),
        sort: req.sort.as_ref().map(|s| rt::Sort {
            column: s.column.clone(),
            descending: s.descending,
        }),
    };
    let reader = live.clone();
    let read = tokio::task::spawn_blocking(move || reader.session.inspect(request)).await;
    // A cell asked for during the reading waited for it; it runs once the session is free
    // (after a reading given up on, when the runner answers it: `ReadingEnded`).
    live.end_reading();
    let read = read.map_err(|e| ActorError::internal(e.to_string()))?;
    Ok(match read {
        Ok(value) => {
            let sid = live.session_id.clone();
            let after = handle
                .read(move |k: &KernelEntity| {
                    k.cells()
                        .filter(|c| {
                            c.session_id.as_deref() == Some(&sid) && c.state == CellState::Ended
                        })
                        .last()
                        .map(|c| c.cell_id.clone())
                })
                .await?;
            InspectReply {
                answer: InspectAnswer::Value,
                reason: None,
                value: Some(value),
                after_cell_id: after,
            }
        }
        Err(e) => {
            let kind = match &e {
                rt::InspectError::Busy => InspectAnswer::Busy,
                rt::InspectError::Missing => InspectAnswer::Missing,
                rt::InspectError::Timeout => InspectAnswer::Timeout,
                rt::InspectError::Failed(_) => InspectAnswer::Failed,
                rt::InspectError::Ended => InspectAnswer::Ended,
            };
            answer(kind, Some(e.to_string()))
        }
    })
}

fn answer(answer: InspectAnswer, reason: Option<String>) -> InspectReply {
    InspectReply {
        answer,
        reason,
        value: None,
        after_cell_id: None,
    }
}

/// `kernel.plot`: one kept plot's PNG, read from its digest's file.
pub async fn plot(handle: &KernelHandle, req: &PlotRequest) -> Result<PlotReply, ActorError> {
    let (id, index) = (req.cell_id.clone(), req.index as usize);
    let plot = handle
        .read(move |k: &KernelEntity| k.cell(&id).map(|c| c.plots.get(index).cloned()))
        .await?
        .ok_or_else(|| ActorError::NotFound {
            what: format!("cell {}", req.cell_id),
        })?
        .ok_or_else(|| ActorError::NotFound {
            what: format!("plot {} of cell {}", req.index, req.cell_id),
        })?;
    let hex = plot.digest.trim_start_matches("sha256:").to_string();
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(ActorError::internal(format!(
            "plot digest {:?}",
            plot.digest
        )));
    }
    let path = handle
        .dir()
        .join(".rho/plugins/kernel/plots")
        .join(format!("{hex}.png"));
    let bytes = tokio::task::spawn_blocking(move || std::fs::read(path))
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
        .map_err(|e| ActorError::NotFound {
            what: format!("the file of plot {}: {e}", plot.digest),
        })?;
    use base64::Engine;
    Ok(PlotReply {
        cell_id: req.cell_id.clone(),
        index: req.index,
        digest: plot.digest,
        png: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

/// `kernel.interrupt`: a running cell gets SIGINT (its session and values stay), a waiting
/// one is not run, an ended one is returned unchanged.
pub async fn interrupt(
    handle: &KernelHandle,
    req: &CellRequest,
    ctx: CommandContext,
) -> Result<CellView, ActorError> {
    // A waiting cell leaves its session's queue first, so it can no longer start.
    for live in [Language::R, Language::Python]
        .into_iter()
        .filter_map(|l| handle.live.get(l))
    {
        lock(&live.pump)
            .queue
            .retain(|(q, _)| q.cell_id != req.cell_id);
    }
    let command = KernelCommand::Interrupt {
        cell_id: req.cell_id.clone(),
    };
    match handle.command(command, ctx).await? {
        KernelReply::Cell(c) => {
            // A waiting cell ended not-run: whoever waits for it looks again at once.
            handle.live.cell_ended.notify_waiters();
            Ok(c)
        }
        KernelReply::Signal(c) => {
            let live = handle.live.get(c.language).filter(|l| {
                lock(&l.pump)
                    .running
                    .as_ref()
                    .is_some_and(|r| r.cell_id == c.cell_id)
            });
            if let Some(live) = live {
                live.session
                    .interrupt()
                    .map_err(|e| ActorError::conflict(e.to_string()))?;
            }
            Ok(c)
        }
        KernelReply::Recorded => Err(ActorError::internal("kernel.interrupt recorded nothing")),
    }
}

/// `kernel.stop`: SIGTERM, then SIGKILL after `stopGraceMs`; an ended session is returned
/// unchanged. The session's end is journaled when its process is gone.
pub async fn stop(
    handle: &KernelHandle,
    req: &StopRequest,
    ctx: &CommandContext,
) -> Result<SessionView, ActorError> {
    let id = req.session_id.clone();
    let session = handle
        .read(move |k: &KernelEntity| k.session(&id).cloned())
        .await?
        .ok_or_else(|| ActorError::NotFound {
            what: format!("session {}", req.session_id),
        })?;
    if session.state != SessionState::Ended {
        if let Some(live) = handle
            .live
            .get(session.language)
            .filter(|l| l.session_id == session.session_id)
        {
            lock(&live.pump).stop_by = Some(by(ctx));
            live.session.stop();
        }
    }
    Ok(session)
}
