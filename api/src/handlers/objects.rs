//! Owner R's `object.read` over HTTP: one message; the owner selects from the snapshot's exact bytes; never starts R.

use super::data::{files_error, project, resource_id};
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::objects::contract::ObjectReadRequest;
use rho_actors::objects::handlers::ReadObject;
use rho_actors::objects::ObjectError;
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
                let id = resource_id(&req.resource.id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let r = &s.limits.resources;
                p.send(ReadObject {
                    id,
                    version: req.resource.version,
                    pointer: req.pointer.unwrap_or_default(),
                    max_file_bytes: r.max_file_bytes,
                    max_read_bytes: r.max_read_bytes,
                })
                .await
                .map_err(mailbox)?
                .map_err(files_error)?
                .map_err(object_error)
            }
        },
    )?;
    Ok(())
}
