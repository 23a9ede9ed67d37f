//! `kernel.*` (Notebook): reach the project's kernel handle (never its request queue), call the owner's operation, answer it.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::entity::CommandContext;
use rho_actors::kernel::contract::{
    CellRequest, InspectRequest, PlaceCheckRequest, PlaceCopyRequest, PlaceListRequest,
    PlaceSetRequest, PlacesRequest, PlotRequest, ReadRequest, RunRequest, StopRequest,
};
use rho_actors::kernel::handlers::{KernelHandle, KernelPort};
use rho_actors::kernel::ops;
use rho_actors::kernel::places::ops as places;
use std::sync::Arc;

/// The project's kernel handle: one message the project answers like a read.
pub(super) async fn handle(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
) -> Result<KernelHandle, ApiError> {
    let p = project(s, ctx, project_id).await?;
    Ok(p.send(KernelPort).await.map_err(mailbox)??)
}

pub(super) fn command_ctx(ctx: &Ctx) -> CommandContext {
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
    register_places(table, services)?;
    super::servers::register(table, services)
}

/// `kernel.places` and `kernel.place.set/check/list/copy`.
fn register_places(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("kernel.places"),
        move |ctx: Ctx, req: PlacesRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(places::places(&h).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("kernel.place.set"),
        move |ctx: Ctx, req: PlaceSetRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(places::set(&h, &req, &command_ctx(&ctx)).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("kernel.place.check"),
        move |ctx: Ctx, req: PlaceCheckRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(places::check(&h, &req, &command_ctx(&ctx)).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("kernel.place.list"),
        move |ctx: Ctx, req: PlaceListRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(places::list(&h, &req).await?)
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("kernel.place.copy"),
        move |ctx: Ctx, req: PlaceCopyRequest| {
            let s = s.clone();
            async move {
                let h = handle(&s, &ctx, &req.project_id).await?;
                Ok(places::copy(&h, &req, &command_ctx(&ctx)).await?)
            }
        },
    )?;
    Ok(())
}
