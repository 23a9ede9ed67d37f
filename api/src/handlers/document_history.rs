//! `document.changes/history/revision`: parse ids, send one past read to the project, map its answer.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::documents::changes::Change;
use rho_actors::documents::contract::history::*;
use rho_actors::documents::contract::EditSpec;
use rho_actors::documents::handlers::{Past, PastQuery, ReadPast, MAX_HISTORY_PAGE};
use rho_actors::project_actor::ProjectActor;
use rho_plumbing::time::rfc3339_ms as time;
use std::sync::Arc;

fn doc_id(text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text)
        .map_err(|_| ApiError::invalid(Some("documentId"), "not a document id (UUID)"))
}

async fn past(
    p: &actix::Addr<ProjectActor>,
    doc: &str,
    query: PastQuery,
) -> Result<Past, ApiError> {
    let id = doc_id(doc)?;
    Ok(p.send(ReadPast { id, query }).await.map_err(mailbox)??)
}

fn change_out(c: Change) -> ChangeOut {
    ChangeOut {
        version: c.version,
        base_version: c.base_version,
        kind: c.kind.to_string(),
        author: c.author,
        time: time(c.time_ms),
        change_id: c.change_id,
        edits: c.edits.map(|edits| {
            edits
                .into_iter()
                .map(|e| EditSpec {
                    start: e.start,
                    end: e.end,
                    text: e.text,
                })
                .collect()
        }),
    }
}

fn unexpected() -> ApiError {
    ApiError::internal("the project answered a different past read")
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("document.changes"),
        move |ctx: Ctx, req: ChangesRequest| {
            let s = s.clone();
            async move {
                let p = project(&s, &ctx, &req.project_id).await?;
                let query = PastQuery::Changes { since: req.since };
                match past(&p, &req.document_id, query).await? {
                    Past::Changes { changes, complete } => Ok(ChangesReply {
                        changes: changes.into_iter().map(change_out).collect(),
                        complete,
                    }),
                    _ => Err(unexpected()),
                }
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("document.history"),
        move |ctx: Ctx, req: HistoryRequest| {
            let s = s.clone();
            async move {
                let limit = req.limit.unwrap_or(MAX_HISTORY_PAGE);
                if limit == 0 || limit > MAX_HISTORY_PAGE {
                    return Err(ApiError::invalid(Some("limit"), "1 to 200 versions a page"));
                }
                let p = project(&s, &ctx, &req.project_id).await?;
                let query = PastQuery::History {
                    before: req.before,
                    limit,
                };
                match past(&p, &req.document_id, query).await? {
                    Past::History { versions, more } => Ok(HistoryReply {
                        versions: versions
                            .into_iter()
                            .map(|c| VersionOut {
                                version: c.version,
                                kind: c.kind.to_string(),
                                author: c.author,
                                time: time(c.time_ms),
                            })
                            .collect(),
                        more,
                    }),
                    _ => Err(unexpected()),
                }
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("document.revision"),
        move |ctx: Ctx, req: RevisionRequest| {
            let s = s.clone();
            async move {
                let p = project(&s, &ctx, &req.project_id).await?;
                let query = PastQuery::Revision {
                    version: req.version,
                    range: req.range.map(|r| (r.start, r.end)),
                };
                match past(&p, &req.document_id, query).await? {
                    Past::Revision {
                        version,
                        text,
                        length,
                        path,
                    } => Ok(RevisionReply {
                        version,
                        text,
                        length,
                        path,
                    }),
                    _ => Err(unexpected()),
                }
            }
        },
    )?;
    Ok(())
}
