//! `artifact.check` and `action.export`: parse, send one message, answer its JSON.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::runs::contract::{ExportRequest, RunRequest};
use rho_actors::runs::handlers::export::{CheckArtifacts, ExportRun, UnsavedChoice};
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("artifact.check"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            Ok(p.send(CheckArtifacts {
                operation_id: req.operation_id.clone(),
            })
            .await
            .map_err(mailbox)??)
        }
    })?;

    let s = services.clone();
    table.register(
        spec("action.export"),
        move |ctx: Ctx, req: ExportRequest| {
            let s = s.clone();
            async move {
                if req.export_id.is_empty() || req.export_id.len() > 128 {
                    return Err(ApiError::invalid(
                        Some("exportId"),
                        "an exportId has 1 to 128 bytes",
                    ));
                }
                let unsaved = match req.unsaved.as_deref() {
                    None => None,
                    Some("include") => Some(UnsavedChoice::Include),
                    Some("leave") => Some(UnsavedChoice::Leave),
                    Some(_) => {
                        return Err(ApiError::invalid(
                            Some("unsaved"),
                            "unsaved is \"include\" or \"leave\"",
                        ))
                    }
                };
                let folder = req
                    .folder
                    .clone()
                    .unwrap_or_else(|| format!("exports/{}", req.operation_id));
                let folder = rho_actors::files::handlers::normalize("folder", &folder)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                Ok(p.send(ExportRun {
                    operation_id: req.operation_id.clone(),
                    export_id: req.export_id.clone(),
                    digest: input_digest(&req, "exportId"),
                    folder,
                    unsaved,
                    ctx: CommandContext {
                        principal: ctx.principal.clone(),
                        time_ms: rho_plumbing::time::now_ms(),
                        identity: None,
                        needs: ctx.needs.clone(),
                    },
                })
                .await
                .map_err(mailbox)??)
            }
        },
    )?;
    Ok(())
}
