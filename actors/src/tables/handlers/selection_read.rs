//! `selection.read` for the project actor: one selection's current keys (version 0 and no keys when never set).

use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use crate::tables::contract::SelectionReadReply;
use crate::tables::entity::{scope_wire, SelectionScope, SelectionsEntity};
use actix::prelude::*;

/// `selection.read` for the actor: the scope already resolved (the caller's own for `caller`).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<SelectionReadReply, ActorError>")]
pub struct ReadSelection {
    pub scope: SelectionScope,
    pub namespace: String,
}

impl Handler<ReadSelection> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<SelectionReadReply, ActorError>>;

    fn handle(&mut self, msg: ReadSelection, _: &mut Context<Self>) -> Self::Result {
        let id = self.journal().project_id();
        let child = self.children().get_or_new::<SelectionsEntity>(id);
        self.dispatch(
            child,
            crate::child::Query::<SelectionsEntity, SelectionReadReply> {
                read: Box::new(move |s| {
                    let (scope, holder) = scope_wire(&msg.scope);
                    let found = s
                        .selections
                        .get(&(msg.scope.clone(), msg.namespace.clone()));
                    SelectionReadReply {
                        scope: scope.to_string(),
                        holder,
                        namespace: msg.namespace.clone(),
                        keys: found.map(|f| f.keys.clone()).unwrap_or_default(),
                        version: found.map_or(0, |f| f.version),
                        principal: found.map(|f| f.principal.clone()),
                        time_ms: found.map(|f| f.time_ms),
                    }
                }),
            },
            false,
        )
    }
}
