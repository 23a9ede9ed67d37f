//! `document.open/read/edit/undo/save/close`: parse ids, check the owner and scope, send one message to the project.

use super::data::{project, write_ctx};
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::documents::contract::*;
use rho_actors::documents::handlers::{
    DocWrite, DocWriteOp, OpenDocument, ReadDocument, SaveDocument,
};
use rho_actors::documents::text::Edit;
use rho_actors::entity::CommandContext;
use std::sync::Arc;

fn doc_id(text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text)
        .map_err(|_| ApiError::invalid(Some("documentId"), "not a document id (UUID)"))
}

fn plain(ctx: &Ctx) -> CommandContext {
    CommandContext {
        principal: ctx.principal.clone(),
        time_ms: rho_plumbing::time::now_ms(),
        identity: None,
        needs: ctx.needs.clone(),
    }
}

use rho_plumbing::time::rfc3339_ms as time;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("document.open"), move |ctx: Ctx, req: OpenRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let opened = p
                .send(OpenDocument {
                    path: req.path,
                    create: req.create,
                    ctx: plain(&ctx),
                })
                .await
                .map_err(mailbox)??;
            Ok(OpenReply {
                id: opened.id.to_string(),
                path: opened.path,
                version: opened.reply.version,
                length: opened.reply.length,
                disk_digest: opened.reply.disk_digest,
                dirty: opened.reply.dirty,
            })
        }
    })?;

    let s = services.clone();
    table.register(spec("document.read"), move |ctx: Ctx, req: ReadRequest| {
        let s = s.clone();
        async move {
            // Retained documents stay readable whatever owners are selected.
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = doc_id(&req.document_id)?;
            let r = p
                .send(ReadDocument {
                    id,
                    range: req.range.map(|r| (r.start, r.end)),
                    version: req.version,
                })
                .await
                .map_err(mailbox)??;
            Ok(ReadReply {
                version: r.version,
                text: r.text,
                length: r.length,
                dirty: r.dirty,
                disk_digest: r.disk_digest,
                changed_on_disk: r.changed_on_disk,
                path: r.path,
                authors: r
                    .authors
                    .into_iter()
                    .map(|a| AuthorOut {
                        version: a.version,
                        principal: a.principal,
                        time: time(a.time_ms),
                    })
                    .collect(),
            })
        }
    })?;

    let s = services.clone();
    table.register(spec("document.edit"), move |ctx: Ctx, req: EditRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = doc_id(&req.document_id)?;
            let cctx = write_ctx(&ctx, &req, &req.change_id)?;
            let edits = req
                .edits
                .into_iter()
                .map(|e| Edit {
                    start: e.start,
                    end: e.end,
                    text: e.text,
                })
                .collect();
            let r = p
                .send(DocWrite {
                    id,
                    op: DocWriteOp::Edit {
                        expected_version: req.expected_version,
                        edits,
                        burst: req.burst,
                    },
                    ctx: cctx,
                })
                .await
                .map_err(mailbox)??;
            Ok(VersionReply {
                version: r.version,
                length: r.length,
            })
        }
    })?;

    let s = services.clone();
    table.register(spec("document.undo"), move |ctx: Ctx, req: UndoRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = doc_id(&req.document_id)?;
            let cctx = write_ctx(&ctx, &req, &req.change_id)?;
            let r = p
                .send(DocWrite {
                    id,
                    op: DocWriteOp::Undo {
                        expected_version: req.expected_version,
                    },
                    ctx: cctx,
                })
                .await
                .map_err(mailbox)??;
            Ok(VersionReply {
                version: r.version,
                length: r.length,
            })
        }
    })?;

    let s = services.clone();
    table.register(spec("document.save"), move |ctx: Ctx, req: SaveRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = doc_id(&req.document_id)?;
            let cctx = write_ctx(&ctx, &req, &req.change_id)?;
            let r = p
                .send(SaveDocument {
                    id,
                    expected_version: req.expected_version,
                    base_digest: req.base_digest,
                    ctx: cctx,
                })
                .await
                .map_err(mailbox)??;
            Ok(SaveReply {
                version: r.version,
                disk_digest: r.disk_digest.unwrap_or_default(),
            })
        }
    })?;

    let s = services.clone();
    table.register(
        spec("document.close"),
        move |ctx: Ctx, req: CloseRequest| {
            let s = s.clone();
            async move {
                let p = project(&s, &ctx, &req.project_id).await?;
                let id = doc_id(&req.document_id)?;
                let cctx = write_ctx(&ctx, &req, &req.change_id)?;
                let r = p
                    .send(DocWrite {
                        id,
                        op: DocWriteOp::Close,
                        ctx: cctx,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(CloseReply { version: r.version })
            }
        },
    )?;
    Ok(())
}
