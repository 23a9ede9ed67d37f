//! `context.create` / `context.read`: exactly one source kind; each kind needs only the owner of its source.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::contexts::contract::{CreateRequest, ReadRequest};
use rho_actors::contexts::handlers::{ContextSource, MakeContext, ReadContext};
use rho_actors::contexts::Frozen;
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::owners::Owner;
use std::sync::Arc;

fn uuid(field: &str, text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text).map_err(|_| ApiError::invalid(Some(field), "not an id (UUID)"))
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("context.create"),
        move |ctx: Ctx, req: CreateRequest| {
            let s = s.clone();
            async move {
                let mut needs = ctx.needs.clone();
                let given = [
                    req.buffer.is_some(),
                    req.entities.is_some(),
                    req.media.is_some(),
                    req.run.is_some(),
                ];
                if given.iter().filter(|g| **g).count() != 1 {
                    return Err(ApiError::invalid(
                        None,
                        "a context is exactly one of buffer, entities, media, run",
                    ));
                }
                if req.change_id.is_empty() || req.change_id.len() > 256 {
                    return Err(ApiError::invalid(
                        Some("changeId"),
                        "a changeId has 1 to 256 characters",
                    ));
                }
                let source = if let Some(b) = &req.buffer {
                    needs.push(Owner::Documents);
                    ContextSource::Buffer {
                        document_id: uuid("buffer.documentId", &b.document_id)?,
                        version: b.version,
                        start: b.range.start,
                        end: b.range.end,
                    }
                } else if let Some(e) = &req.entities {
                    ContextSource::Entities {
                        namespace: e.namespace.clone(),
                        keys: e.keys.clone(),
                    }
                } else if let Some(m) = &req.media {
                    needs.push(Owner::Media);
                    ContextSource::Frozen(
                        super::media_context::freeze(&s, &ctx, &req.project_id, m).await?,
                    )
                } else {
                    // Retained runs stay readable whatever owners are selected.
                    let op = req
                        .run
                        .as_ref()
                        .and_then(|r| r.get("operationId"))
                        .and_then(|o| o.as_str())
                        .ok_or_else(|| {
                            ApiError::invalid(
                                Some("run.operationId"),
                                "a run context names {operationId}",
                            )
                        })?
                        .to_string();
                    let p = project(&s, &ctx, &req.project_id).await?;
                    let frozen = p
                        .send(rho_actors::runs::context::FreezeRun { operation_id: op })
                        .await
                        .map_err(mailbox)??;
                    ContextSource::Frozen(Frozen::Run(Box::new(frozen)))
                };
                let p = project(&s, &ctx, &req.project_id).await?;
                let cctx = CommandContext {
                    principal: ctx.principal.clone(),
                    time_ms: rho_plumbing::time::now_ms(),
                    identity: Some((req.change_id.clone(), input_digest(&req, "changeId"))),
                    needs,
                };
                let record = p
                    .send(MakeContext { source, ctx: cctx })
                    .await
                    .map_err(mailbox)??;
                Ok(record.view())
            }
        },
    )?;

    let s = services.clone();
    table.register(spec("context.read"), move |ctx: Ctx, req: ReadRequest| {
        let s = s.clone();
        async move {
            // Retained contexts stay readable whatever owners are selected.
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = uuid("contextId", &req.context_id)?;
            let record = p.send(ReadContext { id }).await.map_err(mailbox)??;
            Ok(record.view())
        }
    })?;
    Ok(())
}
