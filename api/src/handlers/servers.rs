//! `kernel.servers` and `kernel.server.skill`: serverctl's registry and a server's skill
//! (docs/serverctl.md); a skill over `serverSkillBytes` is `limit` naming its path.

use super::kernel::handle;
use super::services::{spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::kernel::contract::{ServersRequest, SkillRequest};
use rho_actors::kernel::places::servers::{self, SkillRefused};
use serde_json::json;
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("kernel.servers"),
        move |ctx: Ctx, req: ServersRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(servers::servers(&h).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("kernel.server.skill"),
        move |ctx: Ctx, req: SkillRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                match servers::skill(&h, &req).await {
                    Ok(v) => Ok(v),
                    Err(SkillRefused::Limit { path, bytes, max }) => Err(ApiError::new(
                        Code::Limit,
                        format!("the skill at {path} has {bytes} bytes, over kernel.serverSkillBytes ({max})"),
                        json!({"limit": "kernel.serverSkillBytes", "value": max, "path": path}),
                    )),
                    Err(SkillRefused::Other(e)) => Err(e.into()),
                }
            }
        },
    )?;
    Ok(())
}
