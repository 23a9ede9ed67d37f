//! A run the Host holds: its record and, while it runs, its process group, stop grace and
//! live log counters; waiting for it to stop running.

use super::capture::Counter;
use crate::host::proto::{HostRecord, RunState};
use nix::unistd::Pid;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// A run the Host holds: its record and, while it runs, its process group.
#[derive(Debug)]
pub(crate) struct Run {
    pub(super) inner: Mutex<RunInner>,
    /// Notified when the run stops running (and its final record is durable).
    pub(super) ended: Condvar,
}

#[derive(Debug)]
pub(crate) struct RunInner {
    pub(crate) record: HostRecord,
    pub(super) pgid: Option<Pid>,
    pub(super) grace: Duration,
    pub(super) logs: Option<(Arc<Counter>, Arc<Counter>)>,
}

impl RunInner {
    /// The record as it stands, with live log facts while running.
    pub(crate) fn snapshot(&self) -> HostRecord {
        let mut r = self.record.clone();
        if let (RunState::Running, Some((out, err))) = (r.state, &self.logs) {
            r.stdout = out.facts();
            r.stderr = err.facts();
        }
        r
    }

    /// The stop grace of this run (zero for a run this Host did not start).
    pub(crate) fn grace(&self) -> Duration {
        self.grace
    }

    pub(crate) fn is_running(&self) -> bool {
        matches!(self.record.state, RunState::Recorded | RunState::Running)
    }
}

impl Run {
    pub(crate) fn loaded(record: HostRecord) -> Arc<Self> {
        Arc::new(Self {
            inner: Mutex::new(RunInner {
                record,
                pgid: None,
                grace: Duration::ZERO,
                logs: None,
            }),
            ended: Condvar::new(),
        })
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, RunInner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Blocks until the run is not running or `deadline` passes; returns the record.
    pub(crate) fn wait_until(&self, deadline: Instant) -> HostRecord {
        let mut inner = self.lock();
        while inner.is_running() {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            inner = self
                .ended
                .wait_timeout(inner, left)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
        inner.snapshot()
    }
}
