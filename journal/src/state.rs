//! State shared by the journal handle and its writer thread: the mode, seq assignment and the
//! submit queue (`enqueue`), durability waiters and the watermark lock.

use std::collections::{BTreeMap, HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::atomic::AtomicU64;
use std::sync::{Condvar, Mutex, MutexGuard};

use uuid::Uuid;

use crate::config::JournalConfig;
use crate::error::JournalError;
use crate::frame;
use crate::types::{Assigned, DoneFn, EntityRef, NewRecord, WaitFn, INTERNAL_ENTITY_KIND};
use crate::watermark::Watermark;

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
}

/// Everything the journal handle and the writer thread share.
pub(crate) struct Shared {
    pub(crate) project_id: Uuid,
    pub(crate) dir: PathBuf,
    pub(crate) config: JournalConfig,
    pub(crate) epoch: u64,
    pub(crate) state: Mutex<State>,
    pub(crate) work: Condvar,
    pub(crate) durable: AtomicU64,
    /// The watermark last written; writers of the watermark hold this lock.
    pub(crate) marks: Mutex<Watermark>,
}

/// Runs a completion callback; a panicking callback is logged and must not kill the writer.
pub(crate) fn complete(f: impl FnOnce()) {
    if std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).is_err() {
        tracing::error!("a journal completion callback panicked");
    }
}

/// Locks a mutex, ignoring poisoning (no code panics while holding these locks).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    pub(crate) fn internal_entity(&self) -> EntityRef {
        EntityRef {
            kind: INTERNAL_ENTITY_KIND.to_string(),
            id: self.project_id,
        }
    }

    /// Validates, assigns seqs under the lock and queues a batch for the writer.
    pub(crate) fn enqueue(
        &self,
        records: Vec<NewRecord>,
        done: Option<DoneFn>,
        internal: bool,
    ) -> Result<Assigned, JournalError> {
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
        st.queue.push_back(Batch {
            records: stamped,
            bytes,
            done,
        });
        drop(st);
        self.work.notify_one();
        Ok(Assigned {
            first_seq,
            last_seq,
            entity_seqs,
        })
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
