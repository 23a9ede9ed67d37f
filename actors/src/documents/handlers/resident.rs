//! How many document buffer actors are in memory (evicted ones are not): the documents owner's
//! part of a project's status.

use crate::documents::entity::DocumentEntity;
use crate::project_actor::ProjectActor;
use actix::prelude::*;

/// The number of resident document buffers.
#[derive(Debug, Clone, Copy, Message)]
#[rtype(result = "usize")]
pub struct ResidentDocuments;

impl Handler<ResidentDocuments> for ProjectActor {
    type Result = usize;

    fn handle(&mut self, _: ResidentDocuments, _: &mut Context<Self>) -> usize {
        self.children().all::<DocumentEntity>().len()
    }
}
