//! The project actor's document messages, one file per message (or small group); here the
//! shared part: the buffer index lookups, rebuilding an evicted buffer, idle eviction and the
//! `document.changed` announcement.

mod announce;
mod buffer_text;
mod history;
mod list;
mod open;
mod read;
mod reload;
mod resident;
mod save;
mod write;

pub use buffer_text::BufferText;
pub use history::{Past, PastQuery, ReadPast, MAX_HISTORY_PAGE};
pub use list::{DocFacts, ListDocuments};
pub use open::{OpenDocument, OpenedDoc};
pub use read::{DocRead, ReadDocument};
pub use reload::{diff, ReloadBuffers, ReloadDocument};
pub use resident::ResidentDocuments;
pub use save::SaveDocument;
pub use write::{DocWrite, DocWriteOp};

use super::entity::DocumentEntity;
use crate::child::EntityActor;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use uuid::Uuid;

/// What a document handler answers with when it is not resident: an actor future.
type Step<T> = ResponseActFuture<ProjectActor, Result<T, ActorError>>;

impl ProjectActor {
    pub(super) fn doc(
        &mut self,
        id: Uuid,
    ) -> Result<Addr<EntityActor<DocumentEntity>>, ActorError> {
        self.owned.docs.touch(id);
        self.children()
            .get::<DocumentEntity>(id)
            .ok_or_else(|| ActorError::NotFound {
                what: "document".into(),
            })
    }

    /// If buffer `id` was evicted: rebuilds it from the journal, then re-sends `msg` to this
    /// actor (requests for it meanwhile wait for the same rebuild). `None` if it is resident.
    pub(super) fn after_restore<M, V>(
        &mut self,
        id: Uuid,
        msg: M,
        ctx: &mut Context<Self>,
    ) -> Result<Step<V>, M>
    where
        M: Message<Result = Result<V, ActorError>> + Send + 'static,
        V: Send + 'static,
        Self: Handler<M>,
    {
        if !self.owned.docs.is_evicted(id) || self.children().get::<DocumentEntity>(id).is_some() {
            return Err(msg);
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.owned.docs.wait_restore(id, tx) {
            let journal = self.journal().clone();
            let work = async move {
                tokio::task::spawn_blocking(move || {
                    crate::replay::replay_entity::<DocumentEntity>(&journal, id, |s| {
                        s.documents.remove(&id)
                    })
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
                .map_err(|e| ActorError::internal(e.to_string()))
            };
            ctx.spawn(work.into_actor(self).map(move |res, act, _| {
                let outcome = res.map(|state| drop(act.children().insert(id, state)));
                tracing::debug!(document = %id, ok = outcome.is_ok(), "evicted buffer rebuilt from the journal");
                act.owned.docs.restored(id, outcome);
            }));
        }
        let me = ctx.address();
        Ok(Box::pin(
            async move {
                rx.await
                    .unwrap_or_else(|_| Err(ActorError::internal("restore abandoned")))?;
                me.send(msg)
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))?
            }
            .into_actor(self),
        ))
    }

    /// The buffer's resident actor, with `msg` handed back; otherwise the step that answers:
    /// an evicted buffer is rebuilt and `msg` re-sent, an unknown one is `not_found`.
    pub(super) fn resident<M, V>(
        &mut self,
        id: Uuid,
        msg: M,
        ctx: &mut Context<Self>,
    ) -> Result<(M, Addr<EntityActor<DocumentEntity>>), Step<V>>
    where
        M: Message<Result = Result<V, ActorError>> + Send + 'static,
        V: Send + 'static,
        Self: Handler<M>,
    {
        match self.after_restore(id, msg, ctx) {
            Ok(step) => Err(step),
            Err(msg) => match self.doc(id) {
                Ok(child) => Ok((msg, child)),
                Err(e) => Err(Box::pin(fut::ready(Err(e)))),
            },
        }
    }

    /// Moves buffers unused for `idle` out of memory (without closing them).
    pub(crate) fn evict_idle_documents(&mut self, idle: std::time::Duration) {
        for id in self.owned.docs.idle(idle) {
            self.children().remove::<DocumentEntity>(id);
            self.owned.docs.mark_evicted(id);
            tracing::debug!(document = %id, "idle buffer left memory; the journal keeps it");
        }
    }
}
