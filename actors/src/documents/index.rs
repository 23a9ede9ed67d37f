//! The project's view of its buffers: path -> document id, which are open or evicted, their bytes, and who waits for a restore.

use super::entity::{DocReply, DocumentEntity};
use crate::error::ActorError;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::time::{Duration, Instant};
use uuid::Uuid;

/// A buffer actor being rebuilt from the journal, and the requests waiting for it.
type Waiters = Vec<tokio::sync::oneshot::Sender<Result<(), ActorError>>>;

/// Derived from the documents' folded state at open, kept current by the handlers.
#[derive(Debug, Default)]
pub struct DocIndex {
    by_path: HashMap<String, Uuid>,
    open: HashSet<Uuid>,
    bytes: HashMap<Uuid, u64>,
    /// Bytes edits in flight may add (reserved until their reply).
    reserved: u64,
    last_used: HashMap<Uuid, Instant>,
    /// Open buffers whose actor left memory; the journal holds their state.
    evicted: HashSet<Uuid>,
    /// The latest reply of every buffer (facts for snapshots while evicted).
    last: HashMap<Uuid, (String, DocReply)>,
    restoring: HashMap<Uuid, Waiters>,
}

impl DocIndex {
    pub fn from_state(docs: &BTreeMap<Uuid, DocumentEntity>) -> Self {
        let mut ix = DocIndex::default();
        for (id, d) in docs {
            if !d.path.is_empty() {
                ix.by_path.insert(d.path.clone(), *id);
                ix.last.insert(*id, (d.path.clone(), d.reply()));
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

    /// Records a buffer's latest reply (open).
    pub fn set_open(&mut self, id: Uuid, path: &str, reply: &DocReply) {
        self.open.insert(id);
        self.bytes.insert(id, reply.bytes);
        self.last.insert(id, (path.to_string(), reply.clone()));
        self.touch(id);
    }

    pub fn set_closed(&mut self, id: Uuid, path: &str, reply: &DocReply) {
        self.open.remove(&id);
        self.bytes.remove(&id);
        self.last.insert(id, (path.to_string(), reply.clone()));
    }

    /// Every open buffer: its id, path and the digest of its file as last read or saved.
    pub fn open_facts(&self) -> Vec<(Uuid, String, Option<String>)> {
        self.open
            .iter()
            .filter_map(|id| {
                let (path, reply) = self.last.get(id)?;
                Some((*id, path.clone(), reply.disk_digest.clone()))
            })
            .collect()
    }

    pub fn path_of(&self, id: Uuid) -> Option<String> {
        self.last.get(&id).map(|(p, _)| p.clone())
    }

    pub fn touch(&mut self, id: Uuid) {
        self.last_used.insert(id, Instant::now());
    }

    /// Open, resident buffers unused for `idle`.
    pub fn idle(&self, idle: Duration) -> Vec<Uuid> {
        let now = Instant::now();
        self.open
            .iter()
            .filter(|id| !self.evicted.contains(id) && !self.restoring.contains_key(id))
            .filter(|id| {
                self.last_used
                    .get(id)
                    .is_none_or(|t| now.duration_since(*t) >= idle)
            })
            .copied()
            .collect()
    }

    pub fn mark_evicted(&mut self, id: Uuid) {
        self.evicted.insert(id);
    }

    pub fn is_evicted(&self, id: Uuid) -> bool {
        self.evicted.contains(&id)
    }

    /// Joins the restore of `id`; true for the first waiter (who starts it).
    pub fn wait_restore(
        &mut self,
        id: Uuid,
        tx: tokio::sync::oneshot::Sender<Result<(), ActorError>>,
    ) -> bool {
        let waiters = self.restoring.entry(id).or_default();
        waiters.push(tx);
        waiters.len() == 1
    }

    /// Ends the restore of `id`, telling every waiter.
    pub fn restored(&mut self, id: Uuid, outcome: Result<(), ActorError>) {
        if outcome.is_ok() {
            self.evicted.remove(&id);
            self.touch(id);
        }
        for w in self.restoring.remove(&id).unwrap_or_default() {
            let _ = w.send(outcome.clone());
        }
    }

    /// Facts of buffers whose actor is not resident.
    pub fn evicted_facts(&self) -> Vec<(Uuid, String, DocReply)> {
        self.evicted
            .iter()
            .filter_map(|id| self.last.get(id).map(|(p, r)| (*id, p.clone(), r.clone())))
            .collect()
    }
}
