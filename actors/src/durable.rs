//! Bridges the journal's durability callbacks into futures an actor can await.

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
