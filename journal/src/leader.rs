//! Leader/follower group commit: a blocked caller that finds no write in progress writes every
//! pending batch itself; the writer thread writes only for batches nobody is blocked on.
//!
//! The write turn (`State::writing`) is held by exactly one thread at a time, which alone locks
//! the tail segment. Its holder writes groups until its own batch is complete and a few more
//! groups queued meanwhile are written (a leading caller, see `EXTRA_GROUPS`) or the queue is
//! empty, then hands the turn on under the state lock: to a
//! caller blocked on a queued batch if there is one, else to the writer thread, else to nobody.
//! So one `append` with no competition is one write + one fdatasync on the caller's own thread,
//! with no thread hand-off, and queued batches never wait for a turn nobody holds.

use std::cell::Cell;
use std::sync::Arc;

use crate::error::JournalError;
use crate::slot::{Slot, Wake};
use crate::state::{Mode, Shared};
use crate::sync::lock;
use crate::types::{Assigned, NewRecord};

thread_local! {
    /// This thread holds the write turn (it runs completion callbacks).
    static IN_COMMIT: Cell<bool> = const { Cell::new(false) };
}

/// True on a thread that holds the write turn, i.e. inside a completion callback: a blocking
/// journal call there would wait for itself.
pub(crate) fn in_commit() -> bool {
    IN_COMMIT.with(Cell::get)
}

/// Submits `records` and blocks until they are durable (or failed), leading the write when no
/// other write is in progress. Returns the assignment and the batch's last seq.
pub(crate) fn append(
    sh: &Shared,
    records: Vec<NewRecord>,
    internal: bool,
) -> Result<(Assigned, u64), JournalError> {
    let slot = Arc::new(Slot::default());
    let done = Arc::clone(&slot);
    let (assigned, leads) = sh.enqueue(
        records,
        Some(Box::new(move |r| done.set(r))),
        Some(Arc::clone(&slot)),
        internal,
    )?;
    if leads {
        lead(sh, Some(&slot));
    }
    loop {
        match slot.wait() {
            Wake::Done(r) => return r.map(|seq| (assigned, seq)),
            Wake::Lead => lead(sh, Some(&slot)),
        }
    }
}

/// How many more groups a leading caller writes, once its own batch is complete, before it
/// hands the turn on. Handing the turn to a blocked caller costs that caller's wake-up and
/// scheduling while the disk sits idle: with 64 writers on 2 cores it was measured at ~650 µs
/// (p50) between one group's sync and the next group's write, twice the sync itself. The running
/// leader starts the next write at once; the bound keeps its own caller's wait to a few syncs.
const EXTRA_GROUPS: usize = 8;

/// Runs with the write turn: writes groups until `mine` is complete and `EXTRA_GROUPS` more were
/// written (or, for the writer thread, until the queue is empty), then hands the turn on.
fn lead(sh: &Shared, mine: Option<&Slot>) {
    IN_COMMIT.with(|c| c.set(true));
    {
        let mut tail = lock(&sh.tail);
        let mut extra = 0;
        while let Some((group, roll)) = tail.next_group(sh) {
            tail.commit(sh, group, roll, mine);
            if mine.is_some_and(Slot::is_done) {
                if extra == EXTRA_GROUPS {
                    break;
                }
                extra += 1;
            }
        }
    }
    IN_COMMIT.with(|c| c.set(false));
    release(sh);
}

/// Hands the write turn on: to a caller blocked on a queued batch, else to the writer thread,
/// else to nobody (the next submit takes it).
fn release(sh: &Shared) {
    let mut st = lock(&sh.state);
    if st.queue.is_empty() || matches!(st.mode, Mode::Poisoned(_)) {
        st.writing = false;
        let stop = st.stop;
        drop(st);
        if stop {
            sh.work.notify_all();
        }
        return;
    }
    if let Some(next) = st.queue.iter().find_map(|b| b.waiter.as_ref()) {
        next.grant();
        return;
    }
    st.writer_turn = true;
    drop(st);
    sh.work.notify_one();
}

/// The writer thread: writes whenever it is handed the turn; exits once stopped with no write in
/// progress and nothing queued.
pub(crate) fn writer_thread(sh: Arc<Shared>) {
    loop {
        {
            let mut st = lock(&sh.state);
            while !st.writer_turn {
                if st.stop && !st.writing && st.queue.is_empty() {
                    let poisoned = matches!(st.mode, Mode::Poisoned(_));
                    drop(st);
                    // Nobody holds the turn, and nobody will: the tail is ours to trim. After a
                    // failed sync the file is left exactly as it is.
                    if !poisoned {
                        lock(&sh.tail).trim();
                    }
                    return;
                }
                st = sh.work.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            st.writer_turn = false;
        }
        lead(&sh, None);
    }
}
