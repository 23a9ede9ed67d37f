//! Where a blocked `append` caller waits: for its batch's outcome, or to be handed the write turn.
//!
//! A group's durable callers are woken as a tree (`wake_group`): the writer wakes the first, and
//! each woken caller wakes two more before it returns, so the writer is not waking a whole group
//! one by one while the disk sits idle, and the last caller is woken after ~log2(group) hops.

use std::sync::{Arc, Condvar, Mutex};

use crate::error::JournalError;
use crate::sync::lock;

/// What a blocked caller is woken for.
pub(crate) enum Wake {
    Done(Result<u64, JournalError>),
    Lead,
}

#[derive(Default)]
struct SlotState {
    result: Option<Result<u64, JournalError>>,
    lead: bool,
    /// Woken by this slot's caller once it has its result.
    next: Vec<Arc<Slot>>,
}

/// Where a blocked caller waits: for its batch's outcome, or to be handed the write turn.
#[derive(Default)]
pub(crate) struct Slot {
    state: Mutex<SlotState>,
    wake: Condvar,
}

impl Slot {
    pub(crate) fn set(&self, r: Result<u64, JournalError>) {
        lock(&self.state).result = Some(r);
        self.wake.notify_one();
    }

    pub(crate) fn grant(&self) {
        lock(&self.state).lead = true;
        self.wake.notify_one();
    }

    /// Gives each slot its result and wakes the first; the caller of slot `i` wakes slots
    /// `2i+1` and `2i+2`. Results are set from the last slot back, so a slot is woken only after
    /// its result is there.
    pub(crate) fn wake_group(done: Vec<(Arc<Slot>, u64)>) {
        for (i, (slot, seq)) in done.iter().enumerate().rev() {
            let mut s = lock(&slot.state);
            s.result = Some(Ok(*seq));
            s.next = [2 * i + 1, 2 * i + 2]
                .iter()
                .filter_map(|&k| done.get(k).map(|(c, _)| Arc::clone(c)))
                .collect();
        }
        if let Some((first, _)) = done.first() {
            first.wake.notify_one();
        }
    }

    pub(crate) fn is_done(&self) -> bool {
        lock(&self.state).result.is_some()
    }

    pub(crate) fn wait(&self) -> Wake {
        let mut s = lock(&self.state);
        loop {
            if let Some(r) = s.result.take() {
                let next = std::mem::take(&mut s.next);
                drop(s);
                for n in next {
                    n.wake.notify_one();
                }
                return Wake::Done(r);
            }
            if s.lead {
                s.lead = false;
                return Wake::Lead;
            }
            s = self.wake.wait(s).unwrap_or_else(|e| e.into_inner());
        }
    }
}
