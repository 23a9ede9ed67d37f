//! Owner R's `object.read` over HTTP: the snapshot's exact bytes through Files, then a pointer selection; never starts R.

use super::data::{load_bytes, need};
use super::{spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::objects::contract::ObjectReadRequest;
use rho_actors::objects::snapshot::select;
use rho_actors::objects::ObjectError;
use rho_actors::owners::Owner;
use std::sync::Arc;

fn object_error(e: ObjectError) -> ApiError {
    match e {
        ObjectError::Shape(_) => ApiError::invalid(Some("resource"), e.to_string()),
        ObjectError::Pointer(_) => ApiError::invalid(Some("pointer"), e.to_string()),
        ObjectError::NothingSelected => ApiError::not_found("pointer selection"),
        ObjectError::TooLarge { max, .. } => ApiError::limit("resources.maxReadBytes", max),
    }
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("object.read"),
        move |ctx: Ctx, req: ObjectReadRequest| {
            let s = s.clone();
            async move {
                need(&s, Owner::R)?;
                let (_, bytes) = load_bytes(
                    &s,
                    &ctx,
                    &req.project_id,
                    &req.resource.id,
                    req.resource.version,
                )
                .await?;
                let pointer = req.pointer.unwrap_or_default();
                let max = s.limits.resources.max_read_bytes;
                tokio::task::spawn_blocking(move || select(&bytes, &pointer, max))
                    .await
                    .map_err(ApiError::internal)?
                    .map_err(object_error)
            }
        },
    )?;
    Ok(())
}
