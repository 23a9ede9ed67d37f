//! `object.read` for the actor: the snapshot's exact bytes through Files (stale versions refused there), then a pointer selection; never starts R.

use super::contract::ObjectReadReply;
use super::snapshot::select;
use super::ObjectError;
use crate::error::ActorError;
use crate::files::handlers::load;
use crate::files::FilesError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use uuid::Uuid;

/// A selection of one exported object snapshot. The outer error is the request's (id, stale);
/// the inner one why the selection was refused.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Result<ObjectReadReply, ObjectError>, FilesError>")]
pub struct ReadObject {
    pub id: Uuid,
    pub version: u64,
    /// An RFC 6901 pointer into the snapshot's `value` (`""`: the whole value).
    pub pointer: String,
    /// `resources.maxFileBytes`.
    pub max_file_bytes: u64,
    /// `resources.maxReadBytes`: the selection's compact JSON at most.
    pub max_read_bytes: u64,
}

impl Handler<ReadObject> for ProjectActor {
    type Result = ResponseFuture<Result<Result<ObjectReadReply, ObjectError>, FilesError>>;

    fn handle(&mut self, msg: ReadObject, _: &mut Context<Self>) -> Self::Result {
        let loading = load(self, msg.id, msg.version, msg.max_file_bytes, |_| false);
        Box::pin(async move {
            let (_, bytes) = loading.await?;
            let bytes = bytes.unwrap_or_default();
            let (pointer, max) = (msg.pointer, msg.max_read_bytes);
            tokio::task::spawn_blocking(move || select(&bytes, &pointer, max))
                .await
                .map_err(|e| FilesError::Actor(ActorError::internal(e.to_string())))
        })
    }
}
