//! The project actor's context operations: freeze what the caller points at, then journal it.

mod list;

pub use list::ListContexts;

use crate::child::{Execute, Query};
use crate::contexts::entity::{ContextRecord, ContextsEntity, CreateContext, Frozen};
use crate::documents::handlers::BufferText;
use crate::documents::text;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::pin::Pin;
use uuid::Uuid;

/// What `context.create` points at, before it is frozen.
#[derive(Debug, Clone)]
pub enum ContextSource {
    Buffer {
        document_id: Uuid,
        version: u64,
        start: u64,
        end: u64,
    },
    Entities {
        namespace: String,
        keys: Vec<String>,
    },
    /// Already validated against the media's facts by the caller.
    Frozen(Frozen),
}

/// `context.create`.
pub struct MakeContext {
    pub source: ContextSource,
    pub ctx: CommandContext,
}

impl Message for MakeContext {
    type Result = Result<ContextRecord, ActorError>;
}

type Step<T> = Pin<Box<dyn ActorFuture<ProjectActor, Output = Result<T, ActorError>>>>;

impl Handler<MakeContext> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ContextRecord, ActorError>>;

    fn handle(&mut self, msg: MakeContext, ctx: &mut Context<Self>) -> Self::Result {
        let frozen: Step<Frozen> = match msg.source {
            ContextSource::Frozen(f) => Box::pin(fut::ready(Ok(f))),
            ContextSource::Entities { namespace, keys } => {
                let bad = |r: &str| {
                    Box::pin(fut::ready(Err(ActorError::invalid("entities", r)))) as Step<Frozen>
                };
                if namespace.is_empty() {
                    bad("an entity namespace is required")
                } else if keys.is_empty() || keys.iter().any(String::is_empty) {
                    bad("at least one key, and no empty key")
                } else if keys.len() > 10_000 {
                    Box::pin(fut::ready(Err(ActorError::Limit {
                        limit: "selection.maxKeys".into(),
                        value: 10_000,
                    })))
                } else {
                    Box::pin(fut::ready(Ok(Frozen::Entities { namespace, keys })))
                }
            }
            ContextSource::Buffer {
                document_id,
                version,
                start,
                end,
            } => {
                // The documents port: exactly that version's text, or `stale`.
                let me = ctx.address();
                Box::pin(
                    async move {
                        let (path, text) = me
                            .send(BufferText {
                                id: document_id,
                                version,
                            })
                            .await
                            .map_err(|e| ActorError::internal(e.to_string()))??;
                        let slice = text::slice(&text, start, end).ok_or_else(|| {
                            ActorError::invalid(
                                "buffer.range",
                                "the range is out of bounds, reversed, or splits a surrogate pair",
                            )
                        })?;
                        Ok(Frozen::Buffer {
                            document_id,
                            path,
                            version,
                            start,
                            end,
                            text: slice.to_string(),
                        })
                    }
                    .into_actor(self),
                )
            }
        };
        let limits = self.config_limits().clone();
        let pid = self.project_id();
        Box::pin(frozen.then(move |res, act, _| -> Step<ContextRecord> {
            let frozen = match res {
                Ok(f) => f,
                Err(e) => return Box::pin(fut::ready(Err(e))),
            };
            let child = act.children().get_or_new::<ContextsEntity>(pid);
            let command = CreateContext {
                id: Uuid::new_v4(),
                frozen,
                max_contexts: limits.max_contexts,
                max_bytes: limits.max_context_bytes,
            };
            Box::pin(act.dispatch(
                child,
                Execute::<ContextsEntity> {
                    command,
                    ctx: msg.ctx,
                },
                true,
            ))
        }))
    }
}

/// `context.read`.
pub struct ReadContext {
    pub id: Uuid,
}

impl Message for ReadContext {
    type Result = Result<ContextRecord, ActorError>;
}

impl Handler<ReadContext> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ContextRecord, ActorError>>;

    fn handle(&mut self, msg: ReadContext, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<ContextsEntity>(pid);
        let read = Box::new(move |c: &ContextsEntity| {
            c.contexts
                .get(&msg.id)
                .cloned()
                .ok_or(ActorError::NotFound {
                    what: "context".into(),
                })
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<ContextsEntity, Result<ContextRecord, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}
