//! `console.output`: one page of a retained command's kept output (with the record, for `complete`).

use super::state::one;
use crate::console::entity::CommandRecord;
use crate::console::output::{page, Page};
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::console::files;

#[derive(Message)]
#[rtype(result = "Result<(CommandRecord, Page), ActorError>")]
pub struct ReadConsoleOutput {
    pub command_id: String,
    pub offset: u64,
    pub max: u64,
}

impl Handler<ReadConsoleOutput> for ProjectActor {
    type Result = ResponseFuture<Result<(CommandRecord, Page), ActorError>>;

    fn handle(&mut self, msg: ReadConsoleOutput, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = files::record_dir(self.dir(), &msg.command_id);
        Box::pin(async move {
            let c = one(&me, &msg.command_id).await?;
            let p = tokio::task::spawn_blocking(move || page(&dir, msg.offset, msg.max))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?;
            Ok((c, p))
        })
    }
}
