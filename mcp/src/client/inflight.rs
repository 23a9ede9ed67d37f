//! The record of one server's in-flight tool calls, so a legacy-era question from the server
//! is answered only when exactly one call can have caused it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use tokio_util::sync::CancellationToken;

use crate::client::budget::Budget;

/// In-flight calls of one server session.
#[derive(Debug, Clone, Default)]
pub struct InFlight {
    calls: Arc<Mutex<Vec<(u64, Budget, CancellationToken)>>>,
    next: Arc<AtomicU64>,
}

/// Removes its call from the record when dropped.
#[derive(Debug)]
pub struct InFlightGuard {
    calls: Arc<Mutex<Vec<(u64, Budget, CancellationToken)>>>,
    id: u64,
}

impl Drop for InFlightGuard {
    fn drop(&mut self) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .retain(|(id, _, _)| *id != self.id);
    }
}

impl InFlight {
    /// Records a call (with its budget and turn cancellation) until the guard drops.
    pub fn enter(&self, budget: Budget, cancel: CancellationToken) -> InFlightGuard {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push((id, budget, cancel));
        InFlightGuard {
            calls: Arc::clone(&self.calls),
            id,
        }
    }

    /// The budget and cancellation of the only call in flight; `None` with zero or several.
    pub fn single(&self) -> Option<(Budget, CancellationToken)> {
        let calls = self.calls.lock().unwrap_or_else(PoisonError::into_inner);
        match calls.as_slice() {
            [(_, b, c)] => Some((b.clone(), c.clone())),
            _ => None,
        }
    }

    /// How many calls are in flight.
    pub fn len(&self) -> usize {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn single_only_with_exactly_one_call() {
        let f = InFlight::default();
        assert!(f.single().is_none());
        let a = f.enter(
            Budget::new(Duration::from_secs(1)),
            CancellationToken::new(),
        );
        assert!(f.single().is_some());
        let b = f.enter(
            Budget::new(Duration::from_secs(1)),
            CancellationToken::new(),
        );
        assert!(f.single().is_none());
        drop(a);
        assert!(f.single().is_some());
        drop(b);
        assert!(f.is_empty());
    }
}
