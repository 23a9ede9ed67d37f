//! `data.plot` as a project-actor message: the validated table from the Tables reader, then stride sampling.

use super::contract::PlotReply;
use super::plot::plot;
use crate::project_actor::ProjectActor;
use crate::tables::load::{compute, read_table, TableBounds};
use crate::tables::TablesError;
use actix::prelude::*;
use uuid::Uuid;

/// `data.plot` for the actor.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<PlotReply, TablesError>")]
pub struct DataPlot {
    pub id: Uuid,
    pub version: u64,
    pub x: String,
    pub y: String,
    /// `resources.maxChartPoints`.
    pub max_points: u64,
    pub bounds: TableBounds,
}

impl Handler<DataPlot> for ProjectActor {
    type Result = ResponseFuture<Result<PlotReply, TablesError>>;

    fn handle(&mut self, msg: DataPlot, _: &mut Context<Self>) -> Self::Result {
        let reading = read_table(self, msg.id, msg.version, msg.bounds);
        Box::pin(async move {
            let (_, entry) = reading.await?;
            compute(move || Ok(plot(&entry.table, &msg.x, &msg.y, msg.max_points)?)).await
        })
    }
}
