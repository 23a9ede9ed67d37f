//! Waiting for a condition with a deadline: the readiness signal a test waits for instead of a sleep.

use std::time::{Duration, Instant};

/// How often [`until`] looks again.
const POLL: Duration = Duration::from_millis(20);

/// Polls `cond` until it holds; panics naming `what` after `limit`.
pub fn until(what: &str, limit: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(Instant::now() < deadline, "{what}: not within {limit:?}");
        std::thread::sleep(POLL);
    }
}
