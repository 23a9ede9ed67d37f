//! The project's view of its buffers: path -> document id, which are open, and their bytes (for the project-wide limits).

use super::entity::DocumentEntity;
use std::collections::{BTreeMap, HashMap, HashSet};
use uuid::Uuid;

/// Derived from the documents' folded state at open, kept current by the handlers.
#[derive(Debug, Default)]
pub struct DocIndex {
    by_path: HashMap<String, Uuid>,
    open: HashSet<Uuid>,
    bytes: HashMap<Uuid, u64>,
    /// Bytes edits in flight may add (reserved until their reply).
    reserved: u64,
}

impl DocIndex {
    pub fn from_state(docs: &BTreeMap<Uuid, DocumentEntity>) -> Self {
        let mut ix = DocIndex::default();
        for (id, d) in docs {
            if !d.path.is_empty() {
                ix.by_path.insert(d.path.clone(), *id);
            }
            if d.open {
                ix.open.insert(*id);
                ix.bytes.insert(*id, d.text.len() as u64);
            }
        }
        ix
    }

    /// The id of the buffer of `path`, making one if there is none.
    pub fn id_for(&mut self, path: &str) -> Uuid {
        *self
            .by_path
            .entry(path.to_string())
            .or_insert_with(Uuid::new_v4)
    }

    pub fn is_open(&self, id: Uuid) -> bool {
        self.open.contains(&id)
    }

    pub fn open_count(&self) -> usize {
        self.open.len()
    }

    /// Bytes of every open buffer but `except`, plus what edits in flight may add.
    pub fn others_bytes(&self, except: Uuid) -> u64 {
        self.bytes
            .iter()
            .filter(|(id, _)| **id != except)
            .map(|(_, b)| *b)
            .sum::<u64>()
            + self.reserved
    }

    pub fn reserve(&mut self, bytes: u64) {
        self.reserved += bytes;
    }

    pub fn release(&mut self, bytes: u64) {
        self.reserved = self.reserved.saturating_sub(bytes);
    }

    pub fn set_open(&mut self, id: Uuid, bytes: u64) {
        self.open.insert(id);
        self.bytes.insert(id, bytes);
    }

    pub fn set_closed(&mut self, id: Uuid) {
        self.open.remove(&id);
        self.bytes.remove(&id);
    }

    pub fn ids(&self) -> impl Iterator<Item = Uuid> + '_ {
        self.by_path.values().copied()
    }
}
