//! The journal's two lock-side helpers: locking that ignores poisoning, and running a completion callback that may panic.

use std::sync::{Mutex, MutexGuard};

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
