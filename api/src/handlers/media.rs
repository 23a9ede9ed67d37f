//! Owner Media over HTTP: `media.describe`, one message; the owner reads the exact bytes through Files (stale versions refused there).

use super::data::{files_error, project, resource_id};
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::media::contract::{DescribeReply, DescribeRequest};
use rho_actors::media::handlers::DescribeMedia;
use rho_actors::media::MediaError;
use std::sync::Arc;

/// The media facts of one resource version (its declared format, if any, must match the bytes).
/// The outer error is the request's (scope, id, stale); the inner one says why the bytes are
/// not media this owner describes.
pub(super) async fn facts(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    resource: &str,
    version: u64,
) -> Result<Result<DescribeReply, MediaError>, ApiError> {
    let id = resource_id(resource)?;
    let p = project(s, ctx, project_id).await?;
    p.send(DescribeMedia {
        id,
        version,
        max_file_bytes: s.limits.resources.max_file_bytes,
    })
    .await
    .map_err(mailbox)?
    .map_err(files_error)
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("media.describe"),
        move |ctx: Ctx, req: DescribeRequest| {
            let s = s.clone();
            async move {
                facts(
                    &s,
                    &ctx,
                    &req.project_id,
                    &req.resource.id,
                    req.resource.version,
                )
                .await?
                .map_err(|e| ApiError::invalid(Some("resource"), e.to_string()))
            }
        },
    )?;
    Ok(())
}
