//! Bridges the journal's durability callbacks into futures an actor can await; a write made
//! outside the project's dispatch reports its failure here so the project rebuilds.

use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_journal::{Journal, JournalError};
use std::future::Future;

/// Resolves once `seq` is durable, or with the error of the write that covered it.
pub(crate) fn durable(
    journal: &Journal,
    seq: u64,
) -> impl Future<Output = Result<(), JournalError>> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    journal.when_durable(
        seq,
        Box::new(move |result| {
            // The receiver is gone only when the caller stopped waiting; nothing to tell then.
            let _ = tx.send(result);
        }),
    );
    async move { rx.await.unwrap_or(Err(JournalError::Closed)) }
}

/// A write journaled outside [`ProjectActor::dispatch`] was not made durable: the project reacts
/// as to any failed write (a rebuild from disk) and answers what the caller is told.
#[derive(Message)]
#[rtype(result = "ActorError")]
pub(crate) struct WriteFailed(pub JournalError);

impl Handler<WriteFailed> for ProjectActor {
    type Result = MessageResult<WriteFailed>;

    fn handle(&mut self, msg: WriteFailed, ctx: &mut Context<Self>) -> Self::Result {
        MessageResult(self.journal_failed(msg.0, ctx))
    }
}

/// Resolves once the write at `seq` is durable; when it is not, `project` rebuilds its state
/// from the journal (as after every failed write) and the caller is told `unavailable`.
pub(crate) async fn written(
    project: &Addr<ProjectActor>,
    journal: &Journal,
    seq: u64,
) -> Result<(), ActorError> {
    match durable(journal, seq).await {
        Ok(()) => Ok(()),
        Err(e) => Err(project
            .send(WriteFailed(e))
            .await
            .unwrap_or_else(|m| ActorError::internal(format!("project mailbox: {m}")))),
    }
}
