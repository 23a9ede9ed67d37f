//! `selection.set` and the snapshot's list of selections as project-actor messages.

use crate::child::Execute;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use crate::tables::contract::SelectionReply;
use crate::tables::entity::{event_keys, scope_wire, Selection, SelectionEvent, SelectionsEntity};
use actix::prelude::*;

/// `selection.set` for the actor.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<SelectionReply, ActorError>")]
pub struct SetSelection {
    pub set: SelectionEvent,
    pub ctx: CommandContext,
}

impl Handler<SetSelection> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<SelectionReply, ActorError>>;

    fn handle(&mut self, msg: SetSelection, _: &mut Context<Self>) -> Self::Result {
        let id = self.journal().project_id();
        let child = self.children().get_or_new::<SelectionsEntity>(id);
        let SelectionEvent::Set {
            scope,
            namespace,
            keys,
        } = msg.set.clone();
        Box::pin(
            self.dispatch(child, Execute::<SelectionsEntity> { command: msg.set, ctx: msg.ctx }, true)
                .map(move |res, act, _| {
                    if let (Ok(r), Some(bus)) = (&res, act.events()) {
                        let (scope, holder) = scope_wire(&scope);
                        bus.publish(
                            "selection.changed",
                            Some(act.journal().project_id()),
                            serde_json::json!({"scope": scope, "holder": holder, "namespace": namespace, "version": r.version, "keys": event_keys(&keys)}),
                        );
                    }
                    res
                }),
        )
    }
}

/// Every selection of the project (for `observation.snapshot`).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Vec<Selection>, ActorError>")]
pub struct ListSelections;

impl Handler<ListSelections> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Vec<Selection>, ActorError>>;

    fn handle(&mut self, _: ListSelections, _: &mut Context<Self>) -> Self::Result {
        let id = self.journal().project_id();
        let child = self.children().get_or_new::<SelectionsEntity>(id);
        self.dispatch(
            child,
            crate::child::Query::<SelectionsEntity, Vec<Selection>> {
                read: Box::new(|s| s.selections.values().cloned().collect()),
            },
            false,
        )
    }
}
