//! Runs' recovery after replay: settle runs left `sending`, re-attach to runs that were running.
//!
//! Nothing here runs a script again by itself.

use super::entity::RunEvent;
use super::handlers::state::{LearnRun, ReadRuns};
use super::host::{self, HostAnswer};
use super::model::{Delivery, Execution};
use super::slurm::{self, SlurmOf};
use super::watch::{ask, watch};
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::host::proto::HostRequest;

/// Recovery after replay: settle runs left `sending`, re-attach to runs that were running.
#[derive(Message)]
#[rtype(result = "()")]
pub struct RecoverRuns;

impl Handler<RecoverRuns> for ProjectActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: RecoverRuns, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let cx = slurm::SlurmCtx::of(self);
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
                // A run on a Slurm cluster is followed there; placed with no job id is a doubt.
                if let Ok(Ok(Some(s))) = me.send(SlurmOf(op.clone())).await {
                    let Some((event, _)) = slurm::look(&cx, &r, &s).await else {
                        // The controller does not answer now: keep following it.
                        slurm::follow(me.clone(), cx.clone(), op, &watched);
                        continue;
                    };
                    if let Ok(Ok(after)) = me.send(LearnRun { event }).await {
                        if after.execution == Execution::Running {
                            slurm::follow(me.clone(), cx.clone(), op, &watched);
                        }
                    }
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

/// Owner r's recover hook: observe the runs that were in flight through their Hosts (a
/// self-message, so the hook returns at once).
pub(crate) fn recover(_: &mut ProjectActor, ctx: &mut Context<ProjectActor>) {
    ctx.notify(RecoverRuns);
}
