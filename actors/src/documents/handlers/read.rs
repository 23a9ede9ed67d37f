//! `document.read`: a buffer's text, or a UTF-16 range of it, with its facts.

use crate::child::Query;
use crate::documents::entity::{Author, DocumentEntity};
use crate::documents::text;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use serde::Serialize;
use uuid::Uuid;

/// A buffer's text (or a UTF-16 range of it) with its facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocRead {
    pub version: u64,
    pub text: String,
    pub dirty: bool,
    pub disk_digest: Option<String>,
    pub path: String,
    pub authors: Vec<Author>,
    pub length: u64,
    /// The disk's digest (`deleted` when gone) if the file changed under unsaved changes.
    pub changed_on_disk: Option<String>,
}

/// `document.read`.
pub struct ReadDocument {
    pub id: Uuid,
    pub range: Option<(u64, u64)>,
    /// Pin the read to this version (`stale` if the buffer moved on).
    pub version: Option<u64>,
}

impl Message for ReadDocument {
    type Result = Result<DocRead, ActorError>;
}

impl Handler<ReadDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocRead, ActorError>>;

    fn handle(&mut self, msg: ReadDocument, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let max = self.config_limits().max_log_page_bytes;
        let read = Box::new(move |d: &DocumentEntity| -> Result<DocRead, ActorError> {
            if !d.open {
                return Err(ActorError::NotFound {
                    what: "open document".into(),
                });
            }
            if msg.version.is_some_and(|v| v != d.version) {
                return Err(ActorError::Stale {
                    current_version: d.version,
                });
            }
            let length = d.len16;
            let (start, end) = msg.range.unwrap_or((0, length));
            let slice = text::slice(&d.text, start, end).ok_or_else(|| {
                ActorError::invalid(
                    "range",
                    "the range is out of bounds, reversed, or splits a surrogate pair",
                )
            })?;
            if slice.len() as u64 > max {
                return Err(ActorError::Limit {
                    limit: "maxLogPageBytes".into(),
                    value: max,
                });
            }
            Ok(DocRead {
                version: d.version,
                text: slice.to_string(),
                dirty: d.dirty,
                disk_digest: d.disk_digest.clone(),
                path: d.path.clone(),
                authors: d.authors.iter().cloned().collect(),
                length,
                changed_on_disk: d
                    .changed_on_disk
                    .as_ref()
                    .map(|c| c.clone().unwrap_or_else(|| "deleted".into())),
            })
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<DocumentEntity, Result<DocRead, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}
