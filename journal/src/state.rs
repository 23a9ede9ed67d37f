//! State shared by the journal handle, its writing callers and its writer thread: the mode, seq
//! assignment and the submit queue (`enqueue`), the write turn, durability waiters and the
//! watermark lock.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Arc, Condvar, Mutex};

use uuid::Uuid;

use crate::config::JournalConfig;
use crate::error::JournalError;
use crate::frame;
use crate::slot::Slot;
use crate::sync::lock;
use crate::types::{Assigned, DoneFn, EntityRef, NewRecord, WaitFn, INTERNAL_ENTITY_KIND};
use crate::watermark::Watermark;
use crate::writer::Writer;

/// Lifecycle of a journal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Mode {
    Open,
    NeedsRebuild,
    Poisoned(String),
    /// `close` is appending the clean-shutdown marker; only internal records are accepted.
    Closing,
    Closed,
}

impl Mode {
    /// The error a caller gets for a submit in this mode, if any.
    pub(crate) fn refusal(&self, internal: bool) -> Option<JournalError> {
        match self {
            Mode::Open => None,
            Mode::Closing if internal => None,
            Mode::NeedsRebuild => Some(JournalError::NeedsRebuild),
            Mode::Poisoned(r) => Some(JournalError::Poisoned { reason: r.clone() }),
            Mode::Closing | Mode::Closed => Some(JournalError::Closed),
        }
    }
}

/// A record with its assigned seqs.
pub(crate) struct Stamped {
    pub(crate) rec: NewRecord,
    pub(crate) seq: u64,
    pub(crate) entity_seq: u64,
}

/// One submitted batch: written in one write, completed by one `done`.
pub(crate) struct Batch {
    pub(crate) records: Vec<Stamped>,
    pub(crate) bytes: usize,
    pub(crate) done: Option<DoneFn>,
    /// The blocked caller waiting for this batch (`append`), who may be handed the write turn.
    pub(crate) waiter: Option<Arc<Slot>>,
}

impl Batch {
    pub(crate) fn last_seq(&self) -> u64 {
        self.records.last().map_or(0, |r| r.seq)
    }
}

/// State guarded by the submit lock.
pub(crate) struct State {
    pub(crate) mode: Mode,
    pub(crate) next_seq: u64,
    pub(crate) entity_seqs: HashMap<EntityRef, u64>,
    pub(crate) queue: VecDeque<Batch>,
    pub(crate) waiters: BTreeMap<u64, Vec<WaitFn>>,
    pub(crate) stop: bool,
    /// Someone holds the write turn (a leading caller or the writer thread): only its holder
    /// touches the tail segment, and it hands the turn on when it is done (`leader::release`).
    pub(crate) writing: bool,
    /// The write turn was handed to the writer thread.
    pub(crate) writer_turn: bool,
}

/// Everything the journal handle, its writing callers and the writer thread share.
pub(crate) struct Shared {
    pub(crate) project_id: Uuid,
    pub(crate) dir: PathBuf,
    pub(crate) config: JournalConfig,
    pub(crate) epoch: u64,
    pub(crate) state: Mutex<State>,
    /// Wakes the writer thread (its turn, or stop).
    pub(crate) work: Condvar,
    /// The tail segment, locked by the holder of the write turn.
    pub(crate) tail: Mutex<Writer>,
    pub(crate) durable: AtomicU64,
    /// The watermark last written; writers of the watermark hold this lock.
    pub(crate) marks: Mutex<Watermark>,
}

impl Shared {
    pub(crate) fn internal_entity(&self) -> EntityRef {
        EntityRef {
            kind: INTERNAL_ENTITY_KIND.to_string(),
            id: self.project_id,
        }
    }

    /// Validates, assigns seqs under the lock and queues a batch. When no write is in progress
    /// the caller takes the write turn: a `waiter` leads the write itself (returned `true`), a
    /// batch nobody waits on hands the turn to the writer thread.
    pub(crate) fn enqueue(
        &self,
        records: Vec<NewRecord>,
        done: Option<DoneFn>,
        waiter: Option<Arc<Slot>>,
        internal: bool,
    ) -> Result<(Assigned, bool), JournalError> {
        if records.is_empty() {
            return Err(JournalError::invalid("empty batch"));
        }
        let max = self.config.max_record_bytes;
        let mut bytes = 0usize;
        for r in &records {
            frame::validate(r).map_err(JournalError::invalid)?;
            if !internal && r.entity.kind == INTERNAL_ENTITY_KIND {
                return Err(JournalError::invalid(format!(
                    "entity kind {INTERNAL_ENTITY_KIND:?} is reserved for the journal"
                )));
            }
            let n = frame::frame_len(r);
            if n as u64 > u64::from(max) {
                return Err(JournalError::RecordTooLarge {
                    bytes: n as u64,
                    max,
                });
            }
            bytes += n;
        }
        let mut st = lock(&self.state);
        if let Some(e) = st.mode.refusal(internal) {
            return Err(e);
        }
        let first_seq = st.next_seq;
        let mut stamped = Vec::with_capacity(records.len());
        let mut entity_seqs = Vec::with_capacity(records.len());
        for rec in records {
            let es = match st.entity_seqs.get_mut(&rec.entity) {
                Some(s) => {
                    *s += 1;
                    *s
                }
                None => {
                    st.entity_seqs.insert(rec.entity.clone(), 1);
                    1
                }
            };
            let seq = st.next_seq;
            st.next_seq += 1;
            entity_seqs.push(es);
            stamped.push(Stamped {
                rec,
                seq,
                entity_seq: es,
            });
        }
        let last_seq = st.next_seq - 1;
        let leads = waiter.is_some();
        st.queue.push_back(Batch {
            records: stamped,
            bytes,
            done,
            waiter,
        });
        let lead = if st.writing {
            false
        } else {
            st.writing = true;
            st.writer_turn = !leads;
            leads
        };
        let wake_writer = st.writer_turn;
        drop(st);
        if wake_writer {
            self.work.notify_one();
        }
        let a = Assigned {
            first_seq,
            last_seq,
            entity_seqs,
        };
        Ok((a, lead))
    }

    /// Writes the watermark with `update` applied, under the marks lock.
    pub(crate) fn update_watermark(
        &self,
        update: impl FnOnce(&mut Watermark),
    ) -> Result<(), JournalError> {
        let mut marks = lock(&self.marks);
        let mut next = *marks;
        update(&mut next);
        if next != *marks {
            next.write(&self.dir)?;
            *marks = next;
        }
        Ok(())
    }
}
