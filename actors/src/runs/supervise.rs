//! Supervision of delivered runs: a long poll on the Host until each run ends, recovery after
//! replay (settle `sending`, re-attach to running runs), observe, cancel and retry.
//!
//! Nothing here runs a script again by itself; reads never start a Host.

use super::entity::RunEvent;
use super::host::{self, HostAnswer};
use super::model::*;
use super::state_msgs::{one_run, LearnRun, ReadRuns, ResendRun};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::host::proto::HostRequest;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// A refusal of cancel or retry: an ordinary refusal, or the caller may not act on this run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error(transparent)]
    Actor(#[from] ActorError),
    #[error("{0}")]
    Forbidden(String),
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(e.to_string())
}

/// The runs one service watches (project folder, operationId): one watcher each (a clone is
/// the same set).
#[derive(Debug, Clone, Default)]
pub struct Watched(Arc<Mutex<BTreeSet<(PathBuf, String)>>>);

/// Asks the Host on a plain thread (not the runtime's blocking pool, which a stopping service
/// would wait for while a long poll is pending).
async fn ask(dir: &Path, request: HostRequest, timeout: std::time::Duration) -> HostAnswer {
    let d = dir.to_path_buf();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("host-ask".into())
        .spawn(move || {
            let _ = tx.send(host::ask(&d, &request, timeout));
        });
    if let Err(e) = spawned {
        return HostAnswer::Lost(e.to_string());
    }
    rx.await
        .unwrap_or_else(|_| HostAnswer::Lost("the asking thread ended".into()))
}

/// Watches one run until the Host reports its end (journaling what changes), or until no Host
/// answers (then its execution is unknown); a run that already has a watcher in `watched` is
/// left to it.
pub(crate) fn watch(me: Addr<ProjectActor>, dir: PathBuf, op: String, watched: &Watched) {
    let key = (dir.clone(), op.clone());
    let watched = watched.clone();
    if let Ok(mut w) = watched.0.lock() {
        if !w.insert(key.clone()) {
            return;
        }
    }
    let over = Arc::new(std::sync::atomic::AtomicBool::new(false));
    super::announce::follow(me.clone(), dir.clone(), op.clone(), over.clone());
    actix::spawn(async move {
        loop {
            let answer = ask(
                &dir,
                HostRequest::Wait {
                    operation_id: op.clone(),
                    timeout_ms: host::WAIT_POLL.as_millis() as u64,
                },
                host::WAIT_POLL + host::REQUEST_TIMEOUT,
            )
            .await;
            let (event, done) = match answer {
                HostAnswer::Record(r) => {
                    let o = host::observation(&r);
                    let done = o.execution.is_over();
                    (
                        RunEvent::Observed {
                            operation_id: op.clone(),
                            observation: o,
                        },
                        done,
                    )
                }
                HostAnswer::NoHost(_) | HostAnswer::NotFound => (
                    RunEvent::ExecutionUnknown {
                        operation_id: op.clone(),
                    },
                    true,
                ),
                HostAnswer::Lost(reason) | HostAnswer::Refused(reason) => {
                    tracing::warn!(operation = %op, %reason, "waiting on the Host failed; asking again");
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    continue;
                }
            };
            match me.send(LearnRun { event }).await {
                Ok(Ok(_)) => {}
                // The project closed or its journal stopped: leave the run to recovery.
                _ => break,
            }
            if done {
                break;
            }
        }
        over.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut w) = watched.0.lock() {
            w.remove(&key);
        }
    });
}

/// Recovery after replay: settle runs left `sending`, re-attach to runs that were running.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RecoverRuns;

impl Handler<RecoverRuns> for ProjectActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: RecoverRuns, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let watched = self.service_state().watched.clone();
        Box::pin(async move {
            let Ok(Ok(runs)) = me.send(ReadRuns { operation_id: None }).await else {
                return;
            };
            for r in runs {
                let op = r.operation_id.clone();
                let in_flight = r.delivery == Delivery::Sending
                    || (r.delivery == Delivery::Sent && r.execution == Execution::Running);
                if !in_flight {
                    continue;
                }
                let answer = ask(
                    &dir,
                    HostRequest::Lookup {
                        operation_id: op.clone(),
                    },
                    host::REQUEST_TIMEOUT,
                )
                .await;
                let event = match (answer, r.delivery) {
                    (HostAnswer::Record(h), _) => RunEvent::Observed {
                        operation_id: op.clone(),
                        observation: host::observation(&h),
                    },
                    (HostAnswer::NotFound, Delivery::Sending) => RunEvent::NotSent {
                        operation_id: op.clone(),
                        reason: "the Host has no record of it (recovery)".into(),
                    },
                    (_, Delivery::Sending) => RunEvent::Uncertain {
                        operation_id: op.clone(),
                    },
                    _ => RunEvent::ExecutionUnknown {
                        operation_id: op.clone(),
                    },
                };
                if let Ok(Ok(after)) = me.send(LearnRun { event }).await {
                    if after.execution == Execution::Running {
                        watch(me.clone(), dir.clone(), op, &watched);
                    }
                }
            }
        })
    }
}

/// `action.observe`: the record with the Host's current facts. Never starts a Host; with no
/// Host answering the second value is false and nothing stored changes.
#[derive(Message)]
#[rtype(result = "Result<(RunRecord, bool), ActorError>")]
pub struct ObserveRun {
    pub operation_id: String,
}

impl Handler<ObserveRun> for ProjectActor {
    type Result = ResponseFuture<Result<(RunRecord, bool), ActorError>>;

    fn handle(&mut self, msg: ObserveRun, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let watched = self.service_state().watched.clone();
        Box::pin(async move {
            let op = msg.operation_id;
            let r = one_run(&me, &op).await?;
            if r.delivery == Delivery::NotSent || r.execution.is_over() {
                return Ok((r, true));
            }
            match ask(
                &dir,
                HostRequest::Lookup {
                    operation_id: op.clone(),
                },
                host::REQUEST_TIMEOUT,
            )
            .await
            {
                HostAnswer::Record(h) => Ok((observed(me, dir, op, &h, &watched).await?, true)),
                _ => Ok((r, false)),
            }
        })
    }
}

/// Journals what the Host said about a run; keeps watching it while it runs.
async fn observed(
    me: Addr<ProjectActor>,
    dir: PathBuf,
    op: String,
    h: &rho_kernels::host::proto::HostRecord,
    watched: &Watched,
) -> Result<RunRecord, ActorError> {
    let after = me
        .send(LearnRun {
            event: RunEvent::Observed {
                operation_id: op.clone(),
                observation: host::observation(h),
            },
        })
        .await
        .map_err(mailbox)??;
    if after.execution == Execution::Running {
        watch(me, dir, op, watched);
    }
    Ok(after)
}

/// `action.cancel`: journal who asked, then ask the Host to stop the run's process group.
#[derive(Message)]
#[rtype(result = "Result<(RunRecord, bool), RunError>")]
pub struct CancelRun {
    pub operation_id: String,
    pub requested_by: String,
    /// The caller is a local or paired principal (may cancel anyone's run).
    pub person: bool,
}

impl Handler<CancelRun> for ProjectActor {
    type Result = ResponseFuture<Result<(RunRecord, bool), RunError>>;

    fn handle(&mut self, msg: CancelRun, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let watched = self.service_state().watched.clone();
        Box::pin(async move {
            let op = msg.operation_id;
            let r = one_run(&me, &op).await?;
            if !msg.person && r.submitter != msg.requested_by {
                return Err(RunError::Forbidden(
                    "only the submitter or the person at this machine may cancel this run".into(),
                ));
            }
            if r.execution == Execution::Exited || r.delivery == Delivery::NotSent {
                return Ok((r, true));
            }
            me.send(LearnRun {
                event: RunEvent::StopRequested {
                    operation_id: op.clone(),
                    requested_by: msg.requested_by.clone(),
                },
            })
            .await
            .map_err(mailbox)??;
            let answer = ask(
                &dir,
                HostRequest::Cancel {
                    operation_id: op.clone(),
                    requested_by: msg.requested_by,
                },
                host::REQUEST_TIMEOUT,
            )
            .await;
            match answer {
                HostAnswer::Record(h) => Ok((observed(me, dir, op, &h, &watched).await?, true)),
                _ => Ok((one_run(&me, &op).await?, false)),
            }
        })
    }
}

/// `action.retry`: only the submitter; only a `not-sent` run is delivered again (with its
/// frozen code and Core, refused when the service's selected Core changed).
#[derive(Message)]
#[rtype(result = "Result<RunRecord, RunError>")]
pub struct RetryRun {
    pub operation_id: String,
    pub ctx: CommandContext,
}

impl Handler<RetryRun> for ProjectActor {
    type Result = ResponseFuture<Result<RunRecord, RunError>>;

    fn handle(&mut self, msg: RetryRun, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let limits = self.config_limits().r.clone();
        let core = self.r_config().core.clone();
        let state = self.service_state().clone();
        Box::pin(async move {
            let op = msg.operation_id;
            let r = one_run(&me, &op).await?;
            if r.submitter != msg.ctx.principal.to_string() {
                return Err(RunError::Forbidden(
                    "only the submitter may retry a run".into(),
                ));
            }
            if r.delivery != Delivery::NotSent {
                return Ok(r);
            }
            if core.as_ref() != Some(&r.plan.core) {
                return Err(RunError::Actor(ActorError::conflict(format!(
                    "the run was accepted for the Core {} (sha256 {}); the selected Core differs, so it is not delivered",
                    r.plan.core.path, r.plan.core.sha256
                ))));
            }
            let sending = me
                .send(ResendRun {
                    operation_id: op,
                    ctx: msg.ctx,
                })
                .await
                .map_err(mailbox)??;
            if sending.delivery != Delivery::Sending {
                return Ok(sending);
            }
            Ok(super::submit::deliver(me, dir, sending, limits, state).await?)
        })
    }
}
