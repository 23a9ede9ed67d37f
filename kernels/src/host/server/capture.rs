//! One captured stream: copies a child's pipe into its log file up to `maxLogBytes` (the head
//! is kept), flags truncation, and keeps draining the pipe so the child never blocks on it.

use crate::host::proto::LogFacts;
use std::fs::File;
use std::io::{self, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

/// Live facts of one stream, shared with the record while the run is running.
#[derive(Debug, Default)]
pub(crate) struct Counter {
    bytes: AtomicU64,
    truncated: AtomicBool,
}

impl Counter {
    pub(crate) fn facts(&self) -> LogFacts {
        LogFacts {
            bytes: self.bytes.load(Ordering::Acquire),
            truncated: self.truncated.load(Ordering::Acquire),
        }
    }
}

/// Copies `from` into `to` until EOF. `on_truncate` runs once, when the first byte over `cap`
/// arrives (the Host persists the flag then). Write errors stop the copy into the file but not
/// the draining. Returns the final facts and the file, not yet fsynced (the Host fsyncs both
/// logs and the final record together).
pub(crate) fn copy_capped(
    mut from: impl Read,
    mut to: File,
    cap: u64,
    counter: Arc<Counter>,
    on_truncate: impl FnOnce(),
) -> (LogFacts, File) {
    let mut buf = vec![0u8; 64 * 1024];
    let mut kept: u64 = 0;
    let mut writable = true;
    let mut on_truncate = Some(on_truncate);
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                tracing::warn!(error = %e, "reading a run's output pipe failed");
                break;
            }
        };
        let room = cap.saturating_sub(kept);
        let take = (n as u64).min(room) as usize;
        if take > 0 && writable {
            if let Err(e) = to.write_all(&buf[..take]) {
                tracing::error!(error = %e, "writing a run's log failed; the rest is drained unkept");
                writable = false;
            } else {
                kept += take as u64;
                counter.bytes.store(kept, Ordering::Release);
            }
        }
        if take < n && !counter.truncated.load(Ordering::Acquire) {
            counter.truncated.store(true, Ordering::Release);
            if let Some(f) = on_truncate.take() {
                f();
            }
        }
    }
    (counter.facts(), to)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_head_flags_truncation_and_drains_everything() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let file = File::create(&path).unwrap();
        let input: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        let counter = Arc::new(Counter::default());
        let mut calls = 0;
        let (facts, _) = copy_capped(&input[..], file, 70_000, counter.clone(), || calls += 1);
        assert_eq!(calls, 1);
        assert_eq!(
            facts,
            LogFacts {
                bytes: 70_000,
                truncated: true
            }
        );
        assert_eq!(std::fs::read(&path).unwrap(), &input[..70_000]);
    }

    #[test]
    fn under_the_cap_nothing_is_flagged() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.log");
        let counter = Arc::new(Counter::default());
        let (facts, _) = copy_capped(
            &b"hello"[..],
            File::create(&path).unwrap(),
            5,
            counter,
            || panic!("not truncated"),
        );
        assert_eq!(
            facts,
            LogFacts {
                bytes: 5,
                truncated: false
            }
        );
    }
}
