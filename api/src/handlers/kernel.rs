//! `kernel.*` (Notebook): reach the project's kernel handle (never its request queue), call the owner's operation, answer it.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::entity::CommandContext;
use rho_actors::kernel::contract::{
    CellRequest, InspectRequest, PlotRequest, ReadRequest, RemoteReply, RemoteRequest, RunRequest,
    StopRequest, REMOTE_OPERATIONS, REMOTE_REASON,
};
use rho_actors::kernel::handlers::{KernelHandle, KernelPort};
use rho_actors::kernel::ops;
use std::sync::Arc;

/// The project's kernel handle: one message the project answers like a read.
async fn handle(s: &Services, ctx: &Ctx, project_id: &str) -> Result<KernelHandle, ApiError> {
    let p = project(s, ctx, project_id).await?;
    Ok(p.send(KernelPort).await.map_err(mailbox)??)
}

fn command_ctx(ctx: &Ctx) -> CommandContext {
    CommandContext {
        principal: ctx.principal.clone(),
        time_ms: rho_plumbing::time::now_ms(),
        identity: None,
        needs: ctx.needs.clone(),
    }
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("kernel.run"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let h = handle(&s, &ctx, &req.project_id).await?;
            Ok(ops::run(&h, &req, &command_ctx(&ctx)).await?)
        }
    })?;
    let s = services.clone();
    table.register(spec("kernel.read"), move |ctx: Ctx, req: ReadRequest| {
        let s = s.clone();
        async move {
            let h = handle(&s, &ctx, &req.project_id).await?;
            let page = req.clone();
            Ok(h.read(move |k| ops::read_page(k, &page)).await??)
        }
    })?;
    let s = services.clone();
    table.register(
        spec("kernel.inspect"),
        move |ctx: Ctx, req: InspectRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(ops::inspect(&h, &req).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(spec("kernel.plot"), move |ctx: Ctx, req: PlotRequest| {
        let s = s.clone();
        async move {
            let h = handle(&s, &ctx, &req.project_id).await?;
            Ok(ops::plot(&h, &req).await?)
        }
    })?;
    let s = services.clone();
    table.register(
        spec("kernel.interrupt"),
        move |ctx: Ctx, req: CellRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(ops::interrupt(&h, &req, command_ctx(&ctx)).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(spec("kernel.stop"), move |ctx: Ctx, req: StopRequest| {
        let s = s.clone();
        async move {
            let h = handle(&s, &ctx, &req.project_id).await?;
            Ok(ops::stop(&h, &req, &command_ctx(&ctx)).await?)
        }
    })?;
    for op in REMOTE_OPERATIONS {
        let s = services.clone();
        table.register(*op, move |ctx: Ctx, req: RemoteRequest| {
            let s = s.clone();
            async move {
                // The project must exist and be the caller's; then the honest answer.
                project(&s, &ctx, &req.project_id).await?;
                Err::<RemoteReply, _>(ApiError::unavailable(&[], REMOTE_REASON))
            }
        })?;
    }
    Ok(())
}
