//! `document.open`: one logical buffer per file, read from disk (or started empty) within the
//! `documents.*` limits, or the open buffer as it is.

use crate::child::{Execute, Query};
use crate::documents::entity::{DocCommand, DocReply, DocumentEntity};
use crate::documents::files;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use serde::Serialize;
use uuid::Uuid;

/// A document as `document.open` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenedDoc {
    pub id: Uuid,
    pub path: String,
    pub reply: DocReply,
}

/// `document.open`: one logical buffer per file.
pub struct OpenDocument {
    pub path: String,
    pub create: bool,
    pub ctx: CommandContext,
}

impl Message for OpenDocument {
    type Result = Result<OpenedDoc, ActorError>;
}

impl Handler<OpenDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<OpenedDoc, ActorError>>;

    fn handle(&mut self, msg: OpenDocument, ctx: &mut Context<Self>) -> Self::Result {
        // Opening has no identity to retry: the owner gate comes first.
        if let Err(e) = self.gate(&msg.ctx) {
            return Box::pin(fut::ready(Err(e)));
        }
        let limits = self.config_limits().documents.clone();
        let target = files::target(self.dir(), &msg.path);
        let (path, file) = match target {
            Ok(t) => t,
            Err(e) => return Box::pin(fut::ready(Err(e))),
        };
        let id = self.owned.docs.id_for(&path);
        let path2 = path.clone();
        if !self.owned.docs.is_open(id) && self.owned.docs.open_count() as u64 >= limits.max_buffers
        {
            return Box::pin(fut::ready(Err(ActorError::Limit {
                limit: "documents.maxBuffers".into(),
                value: limits.max_buffers,
            })));
        }
        let budget = limits
            .max_total_bytes
            .saturating_sub(self.owned.docs.others_bytes(id));
        let msg = match self.after_restore(id, msg, ctx) {
            Ok(step) => return step,
            Err(msg) => msg,
        };
        let child = self.children().get_or_new::<DocumentEntity>(id);
        let probe = child.clone();
        let read = async move {
            let current = probe
                .send(Query::<DocumentEntity, Option<DocReply>> {
                    read: Box::new(|d| d.open.then(|| d.reply())),
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??
                .reply;
            if let Some(reply) = current {
                return Ok(Err(reply));
            }
            let max = limits.max_buffer_bytes;
            let loaded = tokio::task::spawn_blocking(move || files::read(&file, max))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            match (loaded, msg.create) {
                (Some((text, digest)), _) => Ok(Ok((text, Some(digest)))),
                (None, true) => Ok(Ok((String::new(), None))),
                (None, false) => Err(ActorError::NotFound {
                    what: format!("file {path:?} (pass create: true to start a new one)"),
                }),
            }
        };
        Box::pin(read.into_actor(self).then(
            move |res, act, _| -> ResponseActFuture<ProjectActor, Result<OpenedDoc, ActorError>> {
                let path = path2;
                match res {
                    Err(e) => Box::pin(fut::ready(Err(e))),
                    Ok(Err(reply)) => Box::pin(fut::ready(Ok(OpenedDoc { id, path, reply }))),
                    Ok(Ok((text, digest))) => {
                        if text.len() as u64 > budget {
                            return Box::pin(fut::ready(Err(ActorError::Limit {
                                limit: "documents.maxTotalBytes".into(),
                                value: limits.max_total_bytes,
                            })));
                        }
                        let author = msg.ctx.principal.to_string();
                        let change_id = msg.ctx.identity.as_ref().map(|(c, _)| c.clone());
                        let command = DocCommand::Open {
                            path: path.clone(),
                            text,
                            disk_digest: digest,
                        };
                        Box::pin(
                            act.dispatch(
                                child,
                                Execute::<DocumentEntity> {
                                    command,
                                    ctx: msg.ctx,
                                },
                                true,
                            )
                            .map(move |res, act, _| {
                                let reply = res?;
                                act.owned.docs.set_open(id, &path, &reply);
                                let note = super::announce::Note {
                                    kind: "open",
                                    base_version: reply.version.saturating_sub(1),
                                    change_id,
                                    edits: None,
                                };
                                act.announce_doc(id, &reply, &author, note);
                                Ok(OpenedDoc { id, path, reply })
                            }),
                        )
                    }
                }
            },
        ))
    }
}
