//! The project actor's run supervision messages: `action.observe`, `action.cancel` and
//! `action.retry` (the watcher is `runs::watch`, recovery `runs::reconcile`).
//!
//! Nothing here runs a script again by itself; reads never start a Host.

use super::state::{one_run, LearnRun, ResendRun};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use crate::runs::entity::RunEvent;
use crate::runs::host::{self, HostAnswer};
use crate::runs::model::*;
use crate::runs::slurm::{self, SlurmOf};
use crate::runs::watch::{ask, watch, Watched};
use actix::prelude::*;
use rho_kernels::host::proto::HostRequest;
use std::path::PathBuf;

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
        let cx = slurm::SlurmCtx::of(self);
        let watched = self.service_state().watched.clone();
        Box::pin(async move {
            let op = msg.operation_id;
            let r = one_run(&me, &op).await?;
            if r.delivery == Delivery::NotSent || r.execution.is_over() {
                return Ok((r, true));
            }
            if let Some(s) = me.send(SlurmOf(op.clone())).await.map_err(mailbox)?? {
                let Some((event, _)) = slurm::look(&cx, &r, &s).await else {
                    return Ok((r, false));
                };
                let after = me.send(LearnRun { event }).await.map_err(mailbox)??;
                if after.execution == Execution::Running {
                    slurm::follow(me, cx, op, &watched);
                }
                return Ok((after, true));
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
        let cx = slurm::SlurmCtx::of(self);
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
            if let Some(s) = me.send(SlurmOf(op.clone())).await.map_err(mailbox)?? {
                let stopping = one_run(&me, &op).await?;
                return match slurm::cancel(&cx, &stopping, &s).await {
                    Some(event) => {
                        let after = me.send(LearnRun { event }).await.map_err(mailbox)??;
                        if after.execution == Execution::Running {
                            slurm::follow(me, cx, op, &watched);
                        }
                        Ok((after, true))
                    }
                    None => Ok((stopping, false)),
                };
            }
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
        let cx = slurm::SlurmCtx::of(self);
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
                    operation_id: op.clone(),
                    ctx: msg.ctx,
                })
                .await
                .map_err(mailbox)??;
            if sending.delivery != Delivery::Sending {
                return Ok(sending);
            }
            // A run accepted for a Slurm place is sent there again, to the target it was
            // placed with (its job id is still unknown: a not-sent run was never submitted).
            if let Some(s) = me.send(SlurmOf(op)).await.map_err(mailbox)?? {
                return Ok(slurm::deliver(me, cx, sending, s, state.watched.clone()).await?);
            }
            Ok(super::submit::deliver(me, dir, sending, limits, state).await?)
        })
    }
}
