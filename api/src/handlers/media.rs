//! Owner Media over HTTP: `media.describe`, from the exact bytes Files reads (stale versions refused there).

use super::data::{load_bytes, need};
use super::{spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::media::contract::{DescribeReply, DescribeRequest};
use rho_actors::media::{describe, MediaError};
use rho_actors::owners::Owner;
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
    let (rec, bytes) = load_bytes(s, ctx, project_id, resource, version).await?;
    let declared = rec.facts.media.map(|m| m.format);
    tokio::task::spawn_blocking(move || describe(&bytes, declared.as_deref()))
        .await
        .map_err(ApiError::internal)
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
                need(&s, Owner::Media)?;
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
