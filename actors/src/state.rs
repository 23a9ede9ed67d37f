//! The whole folded state of one project: every entity kind's states, dispatched by entity kind.
//!
//! Replay, the snapshotter and `rho journal inspect --replay` all fold records through
//! [`ProjectState::apply_record`], which dispatches owners' kinds through the owner table
//! (`owner_table::kinds`); an entity or event kind this binary does not know fails closed.
//! Maps are ordered, so the encoding (and so the state hash) is canonical.

use crate::codec::{self, CodecError};
use crate::entity::{decode_event, fold_record, Entity, EntityEvent, FoldError};
use crate::project::ProjectEntity;
use rho_journal::Record;
use serde::{Deserialize, Serialize};

/// Entity kind of the journal's own records (openings, checkpoints, clean-shutdown markers).
pub const JOURNAL_ENTITY: &str = "journal";

/// Bumped whenever [`ProjectState`]'s encoding changes; older snapshots are then ignored.
pub const STATE_FORMAT: u32 = 12;

/// Declares [`ProjectState`]: the seq, the project entity, then each owner's states as the owner
/// table lists them (`owner_table.rs`). The field order is the snapshot encoding (bincode writes
/// fields in order, with no names) and the field names are `inspect --replay`'s JSON keys:
/// appending a field changes the encoding, so it comes with a [`STATE_FORMAT`] bump.
macro_rules! project_state {
    ($($(#[$doc:meta])* $field:ident: $ty:ty,)*) => {
        /// Every entity of one project, as folded from its journal.
        #[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
        pub struct ProjectState {
            /// Seq of the last record folded in (0 for none).
            pub last_seq: u64,
            pub project: $crate::project::ProjectEntity,
            $($(#[$doc])* pub $field: $ty,)*
        }
    };
}
pub(crate) use project_state;

pub use crate::owner_table::ProjectState;

/// A snapshot file's payload.
#[derive(Serialize, Deserialize)]
struct SnapshotBody {
    format: u32,
    state: ProjectState,
}

impl ProjectState {
    /// Folds one durable record. Journal-internal records only advance `last_seq`.
    pub fn apply_record(&mut self, rec: &Record) -> Result<(), FoldError> {
        match rec.entity.kind.as_str() {
            JOURNAL_ENTITY => {}
            ProjectEntity::KIND => fold_record(&mut self.project, rec)?,
            other => match crate::owner_table::kind(other) {
                Some(kind) => (kind.fold)(self, rec)?,
                None => return Err(unknown(rec)),
            },
        }
        self.last_seq = rec.seq;
        Ok(())
    }

    /// Canonical encoding of the state (used for snapshots and hashes).
    pub fn encode(&self) -> Result<Vec<u8>, CodecError> {
        let body = SnapshotBody {
            format: STATE_FORMAT,
            state: self.clone(),
        };
        let mut out = vec![codec::CURRENT_CODEC];
        out.extend(codec::encode(&body)?);
        Ok(out)
    }

    /// Decodes a snapshot payload; `None` for an older state format (then replay from the start).
    pub fn decode(bytes: &[u8]) -> Result<Option<ProjectState>, CodecError> {
        let (&codec_byte, rest) = bytes
            .split_first()
            .ok_or_else(|| CodecError::Decode("empty snapshot".into()))?;
        let body: SnapshotBody = codec::decode(codec_byte, rest)?;
        Ok((body.format == STATE_FORMAT).then_some(body.state))
    }

    /// SHA-256 of the canonical encoding, as lowercase hex: equal states, equal hashes.
    pub fn hash(&self) -> String {
        let bytes = self.encode().unwrap_or_default();
        rho_plumbing::sha256_hex(&bytes)
    }

    /// The state of one entity as JSON for an operator (`inspect --replay --entity`).
    pub fn entity_json(&self, id: &uuid::Uuid) -> Option<serde_json::Value> {
        if self.project.exists() && &self.project.id == id {
            return serde_json::to_value(&self.project).ok();
        }
        crate::owner_table::kinds().find_map(|k| (k.json)(self, id))
    }
}

/// Event kind and one-line summary of a record, for `rho journal inspect`.
pub fn describe_record(rec: &Record) -> Result<String, FoldError> {
    match rec.entity.kind.as_str() {
        JOURNAL_ENTITY => Ok(String::new()),
        ProjectEntity::KIND => Ok(decode_event::<ProjectEntity>(rec)?.event.summary()),
        other => match crate::owner_table::kind(other) {
            Some(kind) => (kind.describe)(rec),
            None => Err(unknown(rec)),
        },
    }
}

fn unknown(rec: &Record) -> FoldError {
    FoldError::UnknownKind {
        seq: rec.seq,
        entity: rec.entity.kind.clone(),
        kind: rec.kind.clone(),
    }
}
