//! The project actor's messages that read or change the console entity: accept, learn, read;
//! each change is journaled through the project's dispatch and announced as `console.changed`.

use crate::child::{Execute, Query};
use crate::console::entity::{
    AcceptReply, CommandRecord, ConsoleCommand, ConsoleEntity, ConsoleEvent,
};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;

/// Publishes `console.changed` for a command (`outputBytes` when output grew).
pub(crate) fn announce(act: &ProjectActor, c: &CommandRecord, output_bytes: Option<u64>) {
    if let Some(bus) = act.events() {
        let mut data = serde_json::json!({
            "commandId": c.command_id,
            "state": crate::console::render::state(c.state),
        });
        if let Some(n) = output_bytes {
            data["outputBytes"] = serde_json::json!(n);
        }
        bus.publish("console.changed", Some(act.project_id()), data);
    }
}

impl ProjectActor {
    fn console_command(
        &mut self,
        command: ConsoleCommand,
        ctx: CommandContext,
    ) -> ResponseActFuture<Self, Result<AcceptReply, ActorError>> {
        let pid = self.project_id();
        let child = self.children().get_or_new::<ConsoleEntity>(pid);
        Box::pin(
            self.dispatch(child, Execute::<ConsoleEntity> { command, ctx }, true)
                .map(|res, act, _| {
                    if let Ok(r) = &res {
                        announce(act, &r.record, None);
                    }
                    res
                }),
        )
    }
}

/// Journal a new command (limits, eviction and the identity checked by the entity).
#[derive(Message)]
#[rtype(result = "Result<AcceptReply, ActorError>")]
pub struct AcceptCommand {
    pub record: Box<CommandRecord>,
    pub ctx: CommandContext,
}

impl Handler<AcceptCommand> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<AcceptReply, ActorError>>;

    fn handle(&mut self, msg: AcceptCommand, _: &mut Context<Self>) -> Self::Result {
        let l = &self.config_limits().console;
        let command = ConsoleCommand::Accept {
            record: msg.record,
            max_running: l.max_running,
            max_records: l.max_records,
        };
        self.console_command(command, msg.ctx)
    }
}

/// Record a fact about a command (journaled only when it changes the record).
#[derive(Message)]
#[rtype(result = "Result<CommandRecord, ActorError>")]
pub struct LearnCommand {
    pub event: ConsoleEvent,
}

impl Handler<LearnCommand> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<CommandRecord, ActorError>>;

    fn handle(&mut self, msg: LearnCommand, ctx: &mut Context<Self>) -> Self::Result {
        self.handle(
            LearnEvents {
                events: vec![msg.event],
            },
            ctx,
        )
    }
}

/// Record facts about one command in order, as one journal batch (a start and an end learned
/// together are one durable write).
#[derive(Message)]
#[rtype(result = "Result<CommandRecord, ActorError>")]
pub struct LearnEvents {
    pub events: Vec<ConsoleEvent>,
}

impl Handler<LearnEvents> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<CommandRecord, ActorError>>;

    fn handle(&mut self, msg: LearnEvents, _: &mut Context<Self>) -> Self::Result {
        let command = ConsoleCommand::Learn { events: msg.events };
        Box::pin(
            self.console_command(command, CommandContext::now(crate::Principal::System))
                .map(|r, _, _| r.map(|a| a.record)),
        )
    }
}

/// Every retained command (oldest first), or one.
#[derive(Message)]
#[rtype(result = "Result<Vec<CommandRecord>, ActorError>")]
pub struct ReadCommands {
    /// `None`: all.
    pub command_id: Option<String>,
}

impl Handler<ReadCommands> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Vec<CommandRecord>, ActorError>>;

    fn handle(&mut self, msg: ReadCommands, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<ConsoleEntity>(pid);
        let read = Box::new(move |e: &ConsoleEntity| match &msg.command_id {
            None => Ok(e.list()),
            Some(id) => e.get(id).map(|c| vec![c.clone()]),
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<ConsoleEntity, Result<Vec<CommandRecord>, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}

/// Publishes output progress of a followed command.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct AnnounceProgress {
    pub record: CommandRecord,
    pub output_bytes: u64,
}

impl Handler<AnnounceProgress> for ProjectActor {
    type Result = ();

    fn handle(&mut self, msg: AnnounceProgress, _: &mut Context<Self>) {
        announce(self, &msg.record, Some(msg.output_bytes));
    }
}

/// One command of this project (`not_found` for a missing or guessed id).
pub(crate) async fn one(me: &Addr<ProjectActor>, id: &str) -> Result<CommandRecord, ActorError> {
    me.send(ReadCommands {
        command_id: Some(id.to_string()),
    })
    .await
    .map_err(|e| ActorError::internal(e.to_string()))??
    .pop()
    .ok_or_else(|| ActorError::NotFound {
        what: "command".into(),
    })
}
