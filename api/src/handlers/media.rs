//! Owner Media over HTTP: `media.describe`, from the exact bytes Files reads (stale versions refused there).

use super::data::{files_error, need, project, resource_id};
use super::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::files::messages::LoadResource;
use rho_actors::media::contract::DescribeRequest;
use rho_actors::media::{describe, MediaError};
use rho_actors::owners::Owner;
use std::sync::Arc;

fn media_error(e: MediaError) -> ApiError {
    ApiError::invalid(Some("resource"), e.to_string())
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
                let id = resource_id(&req.resource.id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let (rec, bytes) = p
                    .send(LoadResource {
                        id,
                        version: req.resource.version,
                        max_file_bytes: s.limits.resources.max_file_bytes,
                    })
                    .await
                    .map_err(mailbox)?
                    .map_err(files_error)?;
                let declared = rec.facts.media.map(|m| m.format);
                tokio::task::spawn_blocking(move || describe(&bytes, declared.as_deref()))
                    .await
                    .map_err(ApiError::internal)?
                    .map_err(media_error)
            }
        },
    )?;
    Ok(())
}
