//! Rebuilding a project's state: newest valid snapshot, then every durable record after it.

use crate::entity::FoldError;
use crate::state::ProjectState;
use rho_journal::{Journal, JournalError};
use std::time::Instant;

/// A replay could not rebuild the state.
#[derive(Debug, Clone, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Fold(#[from] FoldError),
}

/// What a replay did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReplayStats {
    /// Seq of the snapshot replay started from, if any.
    pub snapshot_seq: Option<u64>,
    /// Records folded after the snapshot.
    pub records: u64,
    pub millis: u128,
}

/// Rebuilds the state from the journal: a snapshot when one is valid, else from the start.
pub fn replay(
    journal: &Journal,
    use_snapshot: bool,
) -> Result<(ProjectState, ReplayStats), ReplayError> {
    let started = Instant::now();
    let mut stats = ReplayStats::default();
    let mut state = ProjectState::default();
    if use_snapshot {
        if let Some((seq, bytes)) = journal.load_snapshot()? {
            match ProjectState::decode(&bytes) {
                Ok(Some(s)) if s.last_seq == seq => {
                    state = s;
                    stats.snapshot_seq = Some(seq);
                }
                Ok(_) => tracing::warn!(
                    seq,
                    "snapshot has an older state format; replaying from the start"
                ),
                Err(e) => {
                    tracing::warn!(seq, error = %e, "snapshot does not decode; replaying from the start")
                }
            }
        }
    }
    for rec in journal.records_from(state.last_seq + 1)? {
        state.apply_record(&rec?)?;
        stats.records += 1;
    }
    stats.millis = started.elapsed().as_millis();
    Ok((state, stats))
}

/// Rebuilds one entity of kind `E` from the newest valid snapshot (`take` picks it out of the
/// project's state) and the durable records after it. Used to bring an evicted child back.
pub fn replay_entity<E: crate::entity::Entity>(
    journal: &Journal,
    id: uuid::Uuid,
    take: impl FnOnce(&mut ProjectState) -> Option<E>,
) -> Result<E, ReplayError> {
    let mut from = 1;
    let mut entity = E::default();
    if let Some((seq, bytes)) = journal.load_snapshot()? {
        if let Ok(Some(mut state)) = ProjectState::decode(&bytes) {
            if state.last_seq == seq {
                entity = take(&mut state).unwrap_or_default();
                from = seq + 1;
            }
        }
    }
    for rec in journal.records_from(from)? {
        let rec = rec?;
        if rec.entity.id == id && rec.entity.kind == E::KIND {
            crate::entity::fold_record(&mut entity, &rec)?;
        }
    }
    Ok(entity)
}
