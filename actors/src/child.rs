//! The generic child actor: one entity's state, validated, journaled and applied in one handler.
//!
//! A command is checked against its identity first, then against the owner gate (the owners its
//! new work needs must be selected), then decided against the current state;
//! its events are submitted to the journal (which assigns seqs at once), applied to the state
//! immediately so the next command validates against them, and the caller is told which seq
//! to wait for: the reply is sent only once that seq is durable (CONVENTIONS, Pipelining).

use crate::codec;
use crate::entity::{CommandContext, Entity, EntityEvent, EventMeta, Stamped};
use crate::error::ActorError;
use crate::owners::Selection;
use actix::prelude::*;
use rho_journal::{EntityRef, Journal, NewRecord};
use std::sync::Arc;

/// One entity's actor.
pub(crate) struct EntityActor<E: Entity> {
    entity: EntityRef,
    state: E,
    journal: Arc<Journal>,
    /// The service's `--plugins` selection: the owner gate of new commands.
    selection: Arc<Selection>,
}

impl<E: Entity> EntityActor<E> {
    /// Starts the actor from replayed state.
    pub(crate) fn new(
        id: uuid::Uuid,
        state: E,
        journal: Arc<Journal>,
        selection: Arc<Selection>,
    ) -> Self {
        EntityActor {
            entity: EntityRef {
                kind: E::KIND.to_string(),
                id,
            },
            state,
            journal,
            selection,
        }
    }

    /// Journals `events` as one atomic batch (the identity stamp on the last) and applies them.
    fn commit(
        &mut self,
        events: Vec<E::Event>,
        ctx: &CommandContext,
        reply: Option<&E::Reply>,
    ) -> Result<u64, ActorError> {
        let principal = ctx.principal.to_string();
        let count = events.len();
        let mut records = Vec::with_capacity(count);
        for (i, event) in events.iter().enumerate() {
            let identity = match (&ctx.identity, reply, i + 1 == count) {
                (Some((_, digest)), Some(reply), true) => Some((*digest, reply.clone())),
                _ => None,
            };
            let payload = codec::encode(&Stamped {
                event: event.clone(),
                identity,
            })
            .map_err(|e| ActorError::internal(e.to_string()))?;
            records.push(NewRecord {
                entity: self.entity.clone(),
                time_ms: ctx.time_ms,
                principal: principal.clone(),
                change_id: ctx.identity.as_ref().map(|(id, _)| id.clone()),
                kind: event.kind().to_string(),
                codec: codec::CURRENT_CODEC,
                payload,
            });
        }
        let assigned = self.journal.submit(records, Box::new(|_| {}))?;
        for (i, event) in events.iter().enumerate() {
            let meta = EventMeta {
                seq: assigned.first_seq + i as u64,
                entity_seq: assigned.entity_seqs.get(i).copied().unwrap_or_default(),
                time_ms: ctx.time_ms,
                principal: principal.clone(),
            };
            self.state.apply(event, &meta);
        }
        if let (Some((id, digest)), Some(reply)) = (&ctx.identity, reply) {
            self.state
                .identities_mut()
                .record(id.clone(), *digest, reply.clone());
        }
        Ok(assigned.last_seq)
    }
}

impl<E: Entity> Actor for EntityActor<E> {
    type Context = Context<Self>;
}

/// A reply whose events are journaled; send it once `wait_seq` is durable.
#[derive(Debug, Clone)]
pub(crate) struct Accepted<R> {
    pub reply: R,
    pub wait_seq: u64,
}

/// Run one command against the entity.
pub(crate) struct Execute<E: Entity> {
    pub command: E::Command,
    pub ctx: CommandContext,
}

impl<E: Entity> Message for Execute<E> {
    type Result = Result<Accepted<E::Reply>, ActorError>;
}

impl<E: Entity> Handler<Execute<E>> for EntityActor<E> {
    type Result = Result<Accepted<E::Reply>, ActorError>;

    fn handle(&mut self, msg: Execute<E>, _: &mut Context<Self>) -> Self::Result {
        if let Some((id, digest)) = &msg.ctx.identity {
            if let Some(reply) = self.state.identities().check(id, digest)? {
                return Ok(Accepted {
                    reply,
                    wait_seq: self.journal.last_assigned_seq(),
                });
            }
        }
        // The owner gate, after the identity lookup (CONVENTIONS, Owner selection).
        self.selection.admit(&msg.ctx.needs)?;
        let decision = self.state.decide(&msg.command, &msg.ctx)?;
        let wait_seq = if decision.events.is_empty() {
            self.journal.last_assigned_seq()
        } else {
            self.commit(decision.events, &msg.ctx, Some(&decision.reply))?
        };
        Ok(Accepted {
            reply: decision.reply,
            wait_seq,
        })
    }
}

/// Read the entity's state; the reply is sent after what it observed is durable.
pub(crate) struct Query<E: Entity, R> {
    pub read: Box<dyn FnOnce(&E) -> R + Send>,
}

impl<E: Entity, R: Send + 'static> Message for Query<E, R> {
    type Result = Result<Accepted<R>, ActorError>;
}

impl<E: Entity, R: Send + 'static> Handler<Query<E, R>> for EntityActor<E> {
    type Result = Result<Accepted<R>, ActorError>;

    fn handle(&mut self, msg: Query<E, R>, _: &mut Context<Self>) -> Self::Result {
        Ok(Accepted {
            reply: (msg.read)(&self.state),
            wait_seq: self.journal.last_assigned_seq(),
        })
    }
}

/// Settle what was in flight at a crash; runs once, live, after replay.
pub(crate) struct Reconcile {
    pub time_ms: i64,
}

impl Message for Reconcile {
    type Result = Result<u64, ActorError>;
}

impl<E: Entity> Handler<Reconcile> for EntityActor<E> {
    type Result = Result<u64, ActorError>;

    fn handle(&mut self, msg: Reconcile, _: &mut Context<Self>) -> Self::Result {
        let events = self.state.reconcile(msg.time_ms);
        if events.is_empty() {
            return Ok(self.journal.last_assigned_seq());
        }
        let ctx = CommandContext {
            principal: crate::Principal::System,
            time_ms: msg.time_ms,
            identity: None,
            needs: Vec::new(),
        };
        self.commit(events, &ctx, None)
    }
}
