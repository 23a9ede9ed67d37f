//! The documents owner: shared buffers as journaled child actors (one per file), with UTF-16 offsets, undo and checked saves.

pub mod burst;
pub mod changes;
pub mod contract;
pub mod entity;
pub mod entry;
pub mod events;
pub mod files;
pub mod handlers;
pub mod index;
pub mod reconcile;
pub mod text;

pub use entity::{DocCommand, DocReply, DocumentEntity};
pub use events::DocumentEvent;
pub use index::DocIndex;
#[cfg(test)]
mod model_tests;

use crate::owner_table::{summary, EntityKind, OwnerSpec};
use crate::owners::Owner;

/// The documents owner in the owner table: one entity per buffer.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Documents,
    requires: &[],
    operations: &[contract::OPERATIONS, contract::history::OPERATIONS],
    entries: &[entry::ENTRY],
    actions: &[],
    kinds: &[EntityKind {
        kind: <DocumentEntity as crate::entity::Entity>::KIND,
        fold: |s, rec| {
            crate::entity::fold_record(s.documents.entry(rec.entity.id).or_default(), rec)
        },
        describe: summary::<DocumentEntity>,
        start: |s, c, _| {
            for (id, d) in std::mem::take(&mut s.documents) {
                drop(c.insert(id, d));
            }
        },
        json: |s, id| {
            s.documents
                .get(id)
                .and_then(|d| serde_json::to_value(d).ok())
        },
    }],
    recover: Some(reconcile::recover),
};
