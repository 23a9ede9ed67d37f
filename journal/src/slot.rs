//! Where a blocked `append` caller waits: for its batch's outcome, or to be handed the write turn.

use std::sync::{Condvar, Mutex};

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

    pub(crate) fn is_done(&self) -> bool {
        lock(&self.state).result.is_some()
    }

    pub(crate) fn wait(&self) -> Wake {
        let mut s = lock(&self.state);
        loop {
            if let Some(r) = s.result.take() {
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
