//! `requirements.check` / `requirements.prepare`: validate declarations, send one message, render the probe.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::requirements::contract::{CheckRequest, PrepareRequest, RequirementDecl};
use rho_actors::requirements::handlers::{CheckRequirements, PrepareRequirements};
use rho_actors::requirements::{model, Requirement};
use std::sync::Arc;

fn declarations(list: &[RequirementDecl]) -> Result<Vec<Requirement>, ApiError> {
    Ok(model::validate(
        "requirements",
        &RequirementDecl::raw(list),
    )?)
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("requirements.check"),
        move |ctx: Ctx, req: CheckRequest| {
            let s = s.clone();
            async move {
                let requirements = declarations(&req.requirements)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let probe = p
                    .send(CheckRequirements { requirements })
                    .await
                    .map_err(mailbox)??;
                Ok(probe.view())
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("requirements.prepare"),
        move |ctx: Ctx, req: PrepareRequest| {
            let s = s.clone();
            async move {
                if req.change_id.is_empty() || req.change_id.len() > 128 {
                    return Err(ApiError::invalid(
                        Some("changeId"),
                        "a changeId has 1 to 128 bytes",
                    ));
                }
                let requirements = declarations(&req.requirements)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let outcome = p
                    .send(PrepareRequirements {
                        requirements,
                        change_id: req.change_id.clone(),
                        digest: input_digest(&req, "changeId"),
                        ctx: CommandContext {
                            principal: ctx.principal.clone(),
                            time_ms: rho_plumbing::time::now_ms(),
                            identity: None,
                            needs: ctx.needs.clone(),
                        },
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(outcome.view())
            }
        },
    )?;
    Ok(())
}
