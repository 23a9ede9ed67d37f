//! `media.describe` for the actor: the exact bytes of one resource version through Files (stale versions refused there), then the parsers.

use super::contract::DescribeReply;
use super::{describe, MediaError};
use crate::error::ActorError;
use crate::files::handlers::load;
use crate::files::FilesError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use uuid::Uuid;

/// The media facts of one resource version (its declared format, if any, must match the bytes).
/// The outer error is the request's (id, stale); the inner one says why the bytes are not media
/// this owner describes.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Result<DescribeReply, MediaError>, FilesError>")]
pub struct DescribeMedia {
    pub id: Uuid,
    pub version: u64,
    /// `resources.maxFileBytes`.
    pub max_file_bytes: u64,
}

impl Handler<DescribeMedia> for ProjectActor {
    type Result = ResponseFuture<Result<Result<DescribeReply, MediaError>, FilesError>>;

    fn handle(&mut self, msg: DescribeMedia, _: &mut Context<Self>) -> Self::Result {
        let loading = load(self, msg.id, msg.version, msg.max_file_bytes, |_| false);
        Box::pin(async move {
            let (rec, bytes) = loading.await?;
            let bytes = bytes.unwrap_or_default();
            let declared = rec.facts.media.map(|m| m.format);
            tokio::task::spawn_blocking(move || describe(&bytes, declared.as_deref()))
                .await
                .map_err(|e| FilesError::Actor(ActorError::internal(e.to_string())))
        })
    }
}
