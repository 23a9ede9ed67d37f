//! The project actor's agent operations: record a call (off the reply path), read the activity, open and close bindings.

use super::entity::{Activity, AgentCommand, AgentEntity, AgentReply, Binding, Latest};
use crate::child::{Execute, Query};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::collections::BTreeMap;
use uuid::Uuid;

/// Record one Agent call. The reply comes as soon as the record has its seq (journal order);
/// the record rides the journal's next group commit, and `activity.changed` is announced once
/// it is durable. The edge does not wait for this at all.
pub struct RecordActivity {
    pub activity: Activity,
    pub max_activities: u64,
}

impl Message for RecordActivity {
    type Result = Result<u64, ActorError>;
}

impl Handler<RecordActivity> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<u64, ActorError>>;

    fn handle(&mut self, msg: RecordActivity, _: &mut Context<Self>) -> Self::Result {
        if let Err(e) = self.admit_read() {
            return Box::pin(fut::ready(Err(e)));
        }
        let pid = self.project_id();
        let journal = self.journal().clone();
        let child = self.children().get_or_new::<AgentEntity>(pid);
        let ctx = CommandContext {
            principal: crate::Principal::Agent(msg.activity.session.clone()),
            time_ms: msg.activity.time_ms,
            identity: None,
            needs: Vec::new(),
        };
        let command = AgentCommand::Record {
            activity: msg.activity,
            keep: msg.max_activities,
        };
        let execute = async move { child.send(Execute::<AgentEntity> { command, ctx }).await };
        Box::pin(execute.into_actor(self).map(move |res, act, actx| {
            let accepted = res.map_err(|e| ActorError::internal(format!("child mailbox: {e}")))??;
            let AgentReply::Recorded(a) = accepted.reply else {
                return Err(ActorError::internal("unexpected agent reply"));
            };
            let seq = a.seq;
            let durable = crate::durable::durable(&journal, accepted.wait_seq);
            actx.spawn(durable.into_actor(act).map(move |res, act, _| match res {
                Ok(()) => {
                    if let Some(bus) = act.events() {
                        bus.publish(
                            "activity.changed",
                            Some(pid),
                            serde_json::json!({"seq": a.seq, "principal": format!("agent:{}", a.session),
                                "method": a.method, "outcome": a.outcome, "code": a.code}),
                        );
                    }
                }
                // The project's own writes see the same failure and rebuild from disk.
                Err(e) => tracing::warn!(project = %pid, error = %e, "an activity record was not made durable"),
            }));
            Ok(seq)
        }))
    }
}

/// What `observation.snapshot`, `binding.*` and the agents listing read.
#[derive(Debug, Clone, Default)]
pub struct AgentFacts {
    pub activities: Vec<Activity>,
    pub evicted: u64,
    pub oldest_seq: u64,
    pub last_seq: u64,
    pub latest: BTreeMap<String, Latest>,
    pub bindings: Vec<Binding>,
}

/// Read the agent owner's facts; `session` narrows the activity to one session.
pub struct ReadAgentFacts {
    pub session: Option<String>,
}

impl Message for ReadAgentFacts {
    type Result = Result<AgentFacts, ActorError>;
}

impl Handler<ReadAgentFacts> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<AgentFacts, ActorError>>;

    fn handle(&mut self, msg: ReadAgentFacts, _: &mut Context<Self>) -> Self::Result {
        if let Err(e) = self.admit_read() {
            return Box::pin(fut::ready(Err(e)));
        }
        let pid = self.project_id();
        let child = self.children().get_or_new::<AgentEntity>(pid);
        let read = Box::new(move |e: &AgentEntity| AgentFacts {
            activities: e
                .activities
                .iter()
                .filter(|a| msg.session.as_ref().is_none_or(|s| *s == a.session))
                .cloned()
                .collect(),
            evicted: e.evicted,
            oldest_seq: e.oldest_seq(),
            last_seq: e.last_seq,
            latest: e.latest.clone(),
            bindings: e.bindings.values().cloned().collect(),
        });
        self.dispatch(child, Query::<AgentEntity, AgentFacts> { read }, false)
    }
}

/// `binding.open` / `binding.close`.
pub struct BindingWrite {
    pub command: AgentCommand,
    pub ctx: CommandContext,
}

impl Message for BindingWrite {
    type Result = Result<Binding, ActorError>;
}

impl Handler<BindingWrite> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Binding, ActorError>>;

    fn handle(&mut self, msg: BindingWrite, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<AgentEntity>(pid);
        Box::pin(
            self.dispatch(
                child,
                Execute::<AgentEntity> {
                    command: msg.command,
                    ctx: msg.ctx,
                },
                true,
            )
            .map(move |res, act, _| match res? {
                AgentReply::Binding(b) => {
                    if let Some(bus) = act.events() {
                        bus.publish(
                            "binding.changed",
                            Some(pid),
                            serde_json::json!({"bindingId": b.id, "open": b.closed_ms.is_none()}),
                        );
                    }
                    Ok(b)
                }
                AgentReply::Recorded(_) => Err(ActorError::internal("unexpected agent reply")),
            }),
        )
    }
}

/// A new binding's id.
pub fn new_binding_id() -> Uuid {
    Uuid::new_v4()
}
