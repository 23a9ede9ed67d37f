//! The internal port managed runs and contexts use: the text of one buffer version, or `stale`.

use crate::child::Query;
use crate::documents::entity::DocumentEntity;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use uuid::Uuid;

/// The internal port managed runs use: the text of one buffer version, or `stale`.
pub struct BufferText {
    pub id: Uuid,
    pub version: u64,
}

impl Message for BufferText {
    type Result = Result<(String, String), ActorError>;
}

impl Handler<BufferText> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(String, String), ActorError>>;

    fn handle(&mut self, msg: BufferText, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let read = Box::new(move |d: &DocumentEntity| {
            if !d.open || d.version != msg.version {
                return Err(ActorError::Stale {
                    current_version: d.version,
                });
            }
            Ok((d.path.clone(), d.text.clone()))
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<DocumentEntity, Result<(String, String), ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}
