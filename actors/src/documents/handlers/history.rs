//! `document.changes`, `document.history` and `document.revision`: a buffer's past from the
//! journal (catch-up edits after a version, the list of versions, the text of a past version).

use crate::documents::changes::{self, Change, WalkError};
use crate::documents::text;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::sync::Arc;
use uuid::Uuid;

/// Versions one `document.history` page holds at most.
pub const MAX_HISTORY_PAGE: u64 = 200;

/// Which of a buffer's past a read asks for.
#[derive(Debug, Clone)]
pub enum PastQuery {
    /// Changes with a version above `since`, oldest first (edits bounded per change and in total).
    Changes { since: u64 },
    /// Versions below `before` (default: all), newest first, at most `limit`.
    History { before: Option<u64>, limit: u64 },
    /// The text of `version` (a UTF-16 range of it).
    Revision {
        version: u64,
        range: Option<(u64, u64)>,
    },
}

/// `document.changes` / `document.history` / `document.revision` of buffer `id`.
pub struct ReadPast {
    pub id: Uuid,
    pub query: PastQuery,
}

/// What a past read answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Past {
    /// `complete`: every change after `since` up to the newest journaled one is listed.
    Changes {
        changes: Vec<Change>,
        complete: bool,
    },
    /// `more`: older versions exist below the last one listed.
    History { versions: Vec<Change>, more: bool },
    Revision {
        version: u64,
        text: String,
        length: u64,
        path: String,
    },
}

impl Message for ReadPast {
    type Result = Result<Past, ActorError>;
}

fn walk_error(e: WalkError) -> ActorError {
    ActorError::internal(format!("reading the buffer's journal: {e}"))
}

/// Runs `query` over the journal (a blocking walk of the buffer's events).
fn answer(
    journal: &rho_journal::Journal,
    id: Uuid,
    query: PastQuery,
    bound: u64,
    page: u64,
) -> Result<Past, ActorError> {
    match query {
        PastQuery::Changes { since } => {
            let (mut out, mut spent, mut complete, mut seen) = (Vec::new(), 0u64, true, false);
            changes::walk(journal, id, bound, |c, _| {
                seen |= c.version == since;
                if c.version <= since {
                    return true;
                }
                let cost = c.edits.as_deref().map_or(64, changes::edits_cost) + 64;
                if spent + cost > page {
                    complete = false;
                    return false;
                }
                spent += cost;
                out.push(c.clone());
                true
            })
            .map_err(walk_error)?;
            if !seen && since > 0 {
                return Err(ActorError::NotFound {
                    what: format!("version {since} of this document in the journal"),
                });
            }
            Ok(Past::Changes {
                changes: out,
                complete,
            })
        }
        PastQuery::History { before, limit } => {
            let mut all = Vec::new();
            changes::walk(journal, id, 0, |c, _| {
                if before.is_none_or(|b| c.version < b) && c.kind != "close" {
                    all.push(Change {
                        edits: None,
                        ..c.clone()
                    });
                }
                true
            })
            .map_err(walk_error)?;
            let more = all.len() as u64 > limit;
            let versions = all.into_iter().rev().take(limit as usize).collect();
            Ok(Past::History { versions, more })
        }
        PastQuery::Revision { version, range } => {
            let mut found = None;
            changes::walk(journal, id, 0, |c, doc| {
                if c.version == version && matches!(c.kind, "open" | "edit" | "undo") {
                    found = Some((doc.text.clone(), doc.len16, doc.path.clone()));
                }
                c.version < version
            })
            .map_err(walk_error)?;
            let (full, length, path) = found.ok_or_else(|| ActorError::NotFound {
                what: format!("version {version} of this document in the journal"),
            })?;
            let (start, end) = range.unwrap_or((0, length));
            let slice = text::slice(&full, start, end).ok_or_else(|| {
                ActorError::invalid(
                    "range",
                    "the range is out of bounds, reversed, or splits a surrogate pair",
                )
            })?;
            if slice.len() as u64 > page {
                return Err(ActorError::Limit {
                    limit: "maxLogPageBytes".into(),
                    value: page,
                });
            }
            Ok(Past::Revision {
                version,
                text: slice.to_string(),
                length,
                path,
            })
        }
    }
}

impl Handler<ReadPast> for ProjectActor {
    type Result = ResponseFuture<Result<Past, ActorError>>;

    fn handle(&mut self, msg: ReadPast, _ctx: &mut Context<Self>) -> Self::Result {
        if self.owned.docs.path_of(msg.id).is_none() {
            return Box::pin(async {
                Err(ActorError::NotFound {
                    what: "document".into(),
                })
            });
        }
        let journal: Arc<rho_journal::Journal> = self.journal().clone();
        let bound = self.config_limits().max_event_bytes / 2;
        let page = self.config_limits().max_log_page_bytes;
        Box::pin(async move {
            tokio::task::spawn_blocking(move || answer(&journal, msg.id, msg.query, bound, page))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
        })
    }
}
