//! The project actor's messages that read or change the runs entity: accept, learn, read; each
//! change is journaled through the project's dispatch and announced as `run.changed`.

use crate::child::{Execute, Query};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use crate::runs::entity::{RunCommand, RunEvent, RunsEntity};
use crate::runs::model::{Execution, RunRecord};
use actix::prelude::*;

impl ProjectActor {
    /// Dispatches a command to the runs entity; a run it changed is announced (`run.changed`).
    fn run_command(
        &mut self,
        child: Addr<crate::child::EntityActor<RunsEntity>>,
        command: RunCommand,
        ctx: CommandContext,
    ) -> ResponseActFuture<Self, Result<RunRecord, ActorError>> {
        Box::pin(
            self.dispatch(child, Execute::<RunsEntity> { command, ctx }, true)
                .map(|res, act, _| {
                    if let Ok(r) = &res {
                        announce(act, r);
                    }
                    res
                }),
        )
    }
}

fn announce(act: &ProjectActor, r: &RunRecord) {
    if let Some(bus) = act.events() {
        bus.publish(
            "run.changed",
            Some(act.project_id()),
            serde_json::json!({
                "operationId": r.operation_id,
                "delivery": crate::runs::render::delivery(r),
                "execution": crate::runs::render::execution(r),
            }),
        );
    }
}

/// Journal a frozen run and `sending` (limits and the identity checked by the entity).
#[derive(Message)]
#[rtype(result = "Result<RunRecord, ActorError>")]
pub struct AcceptRun {
    pub record: Box<RunRecord>,
    pub ctx: CommandContext,
}

impl Handler<AcceptRun> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<RunRecord, ActorError>>;

    fn handle(&mut self, msg: AcceptRun, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let limits = self.config_limits().clone();
        let command = RunCommand::Accept {
            record: msg.record,
            max_concurrent: limits.max_concurrent_actions,
            max_operations: limits.max_operations,
        };
        self.run_command(child, command, msg.ctx)
    }
}

/// Mark a retained `not-sent` run `sending` again (explicit retry); other runs answer as they are.
#[derive(Message)]
#[rtype(result = "Result<RunRecord, ActorError>")]
pub struct ResendRun {
    pub operation_id: String,
    pub ctx: CommandContext,
}

impl Handler<ResendRun> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<RunRecord, ActorError>>;

    fn handle(&mut self, msg: ResendRun, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let command = RunCommand::Resend {
            operation_id: msg.operation_id,
            max_concurrent: self.config_limits().max_concurrent_actions,
        };
        self.run_command(child, command, msg.ctx)
    }
}

/// Record a fact about a run (journaled only when it changes the record). When the run is seen
/// to have ended, its declared outputs are registered as resources.
#[derive(Message)]
#[rtype(result = "Result<RunRecord, ActorError>")]
pub struct LearnRun {
    pub event: RunEvent,
}

impl Handler<LearnRun> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<RunRecord, ActorError>>;

    fn handle(&mut self, msg: LearnRun, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let op = msg.event.operation_id().to_string();
        let before = child.clone();
        let ctx = CommandContext {
            principal: crate::Principal::System,
            time_ms: rho_plumbing::time::now_ms(),
            identity: None,
            needs: Vec::new(),
        };
        let command = RunCommand::Learn { event: msg.event };
        let prior = async move {
            before
                .send(Query::<RunsEntity, Option<RunRecord>> {
                    read: Box::new(move |e: &RunsEntity| e.runs.get(&op).cloned()),
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))
                .and_then(|r| r.map(|a| a.reply))
        };
        Box::pin(prior.into_actor(self).then(move |prior, act, _| {
            let prior = prior.ok().flatten();
            act.dispatch(child, Execute::<RunsEntity> { command, ctx }, true)
                .map(move |res, act, ctx| {
                    if let Ok(r) = &res {
                        if prior.as_ref() != Some(r) {
                            announce(act, r);
                            let ended_now = r.execution == Execution::Exited
                                && prior.as_ref().map(|p| p.execution) != Some(Execution::Exited);
                            if ended_now {
                                crate::runs::outputs::register(
                                    r.clone(),
                                    ctx.address(),
                                    act.config_limits(),
                                );
                            }
                        }
                    }
                    res
                })
        }))
    }
}

/// Every retained run, or one.
#[derive(Message)]
#[rtype(result = "Result<Vec<RunRecord>, ActorError>")]
pub struct ReadRuns {
    /// `None`: all.
    pub operation_id: Option<String>,
}

impl Handler<ReadRuns> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Vec<RunRecord>, ActorError>>;

    fn handle(&mut self, msg: ReadRuns, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let read = Box::new(move |e: &RunsEntity| match &msg.operation_id {
            None => Ok(e.runs.values().cloned().collect()),
            Some(op) => e.get(op).map(|r| vec![r.clone()]),
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<RunsEntity, Result<Vec<RunRecord>, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}

/// The identity check of a submission: the original run (as it stands now) for the same input,
/// `conflict` for a different one, `None` for a new identity.
#[derive(Message)]
#[rtype(result = "Result<Option<RunRecord>, ActorError>")]
pub struct CheckRunIdentity {
    pub operation_id: String,
    pub digest: crate::identity::InputDigest,
}

impl Handler<CheckRunIdentity> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Option<RunRecord>, ActorError>>;

    fn handle(&mut self, msg: CheckRunIdentity, _: &mut Context<Self>) -> Self::Result {
        use crate::entity::Entity;
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let read = Box::new(move |e: &RunsEntity| {
            match e.identities().check(&msg.operation_id, &msg.digest)? {
                Some(_) => Ok(e.runs.get(&msg.operation_id).cloned()),
                None if e.runs.contains_key(&msg.operation_id) => Err(ActorError::conflict(
                    format!("operationId {:?} names another run", msg.operation_id),
                )),
                None => Ok(None),
            }
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<RunsEntity, Result<Option<RunRecord>, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}

/// One run of this project by `operationId` (`not_found` for a missing or guessed id).
pub(super) async fn one_run(
    me: &Addr<ProjectActor>,
    op: &str,
) -> Result<crate::runs::RunRecord, ActorError> {
    me.send(ReadRuns {
        operation_id: Some(op.to_string()),
    })
    .await
    .map_err(|e| ActorError::internal(e.to_string()))??
    .pop()
    .ok_or_else(|| ActorError::NotFound { what: "run".into() })
}
