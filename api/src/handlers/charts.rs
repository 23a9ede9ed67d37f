//! Owner Charts over HTTP: `data.plot`, through the Tables reader (stale and invalid tables refused there).

use super::data::{project, resource_id};
use super::services::{mailbox, spec, Services};
use super::tables::tables_error;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::charts::contract::PlotRequest;
use rho_actors::charts::handlers::DataPlot;
use rho_actors::tables::load::TableBounds;
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("data.plot"), move |ctx: Ctx, req: PlotRequest| {
        let s = s.clone();
        async move {
            let id = resource_id(&req.resource.id)?;
            let p = project(&s, &ctx, &req.project_id).await?;
            let r = &s.limits.resources;
            p.send(DataPlot {
                id,
                version: req.resource.version,
                x: req.x,
                y: req.y,
                max_points: r.max_chart_points,
                bounds: TableBounds {
                    max_file_bytes: r.max_file_bytes,
                    max_rows: r.max_rows,
                },
            })
            .await
            .map_err(mailbox)?
            .map_err(tables_error)
        }
    })?;
    Ok(())
}
