//! Owner Files over HTTP: `resource.register`, `resource.capture`, `resource.list`, `resource.read`.

use super::data::{files_error, load_bytes, project, write_ctx};
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use base64::Engine;
use rho_actors::files::contract::{
    CaptureRequest, ListReply, ListRequest, ListedResource, ReadReply, ReadRequest,
    RegisterRequest, ResourceView,
};
use rho_actors::files::handlers::{Declared, ListResources, PutResource};
use rho_actors::files::PutBounds;
use std::sync::Arc;

const LIST_PAGE: usize = 200;

fn bounds(s: &Services) -> PutBounds {
    PutBounds {
        max_resources: s.limits.resources.max_resources,
        max_artifact_bytes: s.limits.resources.max_artifact_bytes,
    }
}

fn check_word(field: &str, v: &str) -> Result<(), ApiError> {
    if v.is_empty() || v.len() > 64 || v.chars().any(char::is_control) {
        return Err(ApiError::invalid(Some(field), "1 to 64 printable bytes"));
    }
    Ok(())
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("resource.register"),
        move |ctx: Ctx, req: RegisterRequest| {
            let s = s.clone();
            async move {
                check_word("kind", &req.kind)?;
                check_word("format", &req.format)?;
                let wctx = write_ctx(&ctx, &req, &req.change_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let rec = p
                    .send(PutResource {
                        path: req.path,
                        declared: Some(Declared {
                            kind: req.kind,
                            format: req.format,
                            partial: req.partial,
                            table: req.table,
                            media: req.media,
                        }),
                        capture: false,
                        max_file_bytes: s.limits.resources.max_file_bytes,
                        bounds: bounds(&s),
                        ctx: wctx,
                        operation_id: None,
                    })
                    .await
                    .map_err(mailbox)?
                    .map_err(files_error)?;
                Ok(ResourceView::from(rec))
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("resource.capture"),
        move |ctx: Ctx, req: CaptureRequest| {
            let s = s.clone();
            async move {
                let wctx = write_ctx(&ctx, &req, &req.change_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let rec = p
                    .send(PutResource {
                        path: req.path,
                        declared: None,
                        capture: true,
                        max_file_bytes: s.limits.resources.max_file_bytes,
                        bounds: bounds(&s),
                        ctx: wctx,
                        operation_id: None,
                    })
                    .await
                    .map_err(mailbox)?
                    .map_err(files_error)?;
                Ok(ResourceView::from(rec))
            }
        },
    )?;

    let s = services.clone();
    table.register(spec("resource.list"), move |ctx: Ctx, req: ListRequest| {
        let s = s.clone();
        async move {
            // Listing retained metadata keeps working with Files unselected.
            let p = project(&s, &ctx, &req.project_id).await?;
            let (rows, next) = p
                .send(ListResources {
                    cursor: req.cursor,
                    page: LIST_PAGE,
                })
                .await
                .map_err(mailbox)??;
            Ok(ListReply {
                resources: rows
                    .into_iter()
                    .map(|(rec, versions)| ListedResource {
                        latest: rec.into(),
                        versions,
                    })
                    .collect(),
                next,
            })
        }
    })?;

    let s = services.clone();
    table.register(spec("resource.read"), move |ctx: Ctx, req: ReadRequest| {
        let s = s.clone();
        async move {
            // Retained raw bytes stay readable with Files unselected (CONVENTIONS, Owner selection).
            let max_read = s.limits.resources.max_read_bytes;
            if req.length.is_some_and(|l| l > max_read) {
                return Err(ApiError::limit("resources.maxReadBytes", max_read));
            }
            let (rec, bytes) = load_bytes(
                &s,
                &ctx,
                &req.project_id,
                &req.resource.id,
                req.resource.version,
            )
            .await?;
            let total = bytes.len() as u64;
            let offset = req.offset.unwrap_or(0);
            if offset > total {
                return Err(ApiError::invalid(
                    Some("offset"),
                    format!("offset is past the end ({total} bytes)"),
                ));
            }
            let length = req.length.unwrap_or(max_read).min(total - offset);
            let slice = &bytes[offset as usize..(offset + length) as usize];
            Ok(ReadReply {
                resource: req.resource,
                offset,
                length,
                total,
                sha256: rec.facts.sha256,
                data: base64::engine::general_purpose::STANDARD.encode(slice),
            })
        }
    })?;
    Ok(())
}
