//! The state a Host's connection threads share (its runs, the records it refuses, whether it
//! is shutting down, when it was last used) and how a Host ended.

use super::run::Run;
use rho_plumbing::time::now_ms;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How a Host ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostExit {
    /// Nothing ran and nothing was asked for the idle period.
    Idle,
    /// A Shutdown request stopped its runs and was answered.
    Shutdown,
    /// Another Host already serves this project (it answered Ping with this pid).
    AlreadyServed { pid: u32 },
}

/// The state connection threads share.
#[derive(Debug)]
pub(crate) struct Host {
    /// The canonical project folder.
    pub(crate) project: PathBuf,
    /// The trampoline command R runs under (`HostConfig::guard`).
    pub(super) guard: Vec<OsString>,
    runs: Mutex<BTreeMap<String, Arc<Run>>>,
    /// Record folders whose record cannot be read: refused, never re-run.
    pub(super) unreadable: BTreeMap<String, String>,
    shutting_down: AtomicBool,
    pub(crate) started_at_ms: i64,
    /// Last request or run end (for the idle exit).
    activity: Mutex<Instant>,
}

impl Host {
    /// A Host starting now with the runs and unreadable records loaded from its folder.
    pub(super) fn new(
        project: PathBuf,
        guard: Vec<OsString>,
        runs: BTreeMap<String, Arc<Run>>,
        unreadable: BTreeMap<String, String>,
    ) -> Self {
        Self {
            project,
            guard,
            runs: Mutex::new(runs),
            unreadable,
            shutting_down: AtomicBool::new(false),
            started_at_ms: now_ms(),
            activity: Mutex::new(Instant::now()),
        }
    }

    pub(crate) fn runs(&self) -> MutexGuard<'_, BTreeMap<String, Arc<Run>>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn run(&self, operation_id: &str) -> Option<Arc<Run>> {
        self.runs().get(operation_id).cloned()
    }

    pub(crate) fn touch(&self) {
        *self.activity.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
    }

    pub(super) fn idle_for(&self) -> Duration {
        self.activity
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .elapsed()
    }

    pub(crate) fn is_shutting_down(&self) -> bool {
        self.shutting_down.load(Ordering::Acquire)
    }

    /// From now on new Submits are refused. Set under the runs lock, which a Submit holds from
    /// its check of this flag until its run is in the map (locked until spawned), so a
    /// Shutdown's list of running runs misses no run that was let in.
    pub(crate) fn begin_shutdown(&self) {
        let _runs = self.runs();
        self.shutting_down.store(true, Ordering::Release);
    }

    /// Runs still running, in operationId order.
    pub(crate) fn running(&self) -> Vec<Arc<Run>> {
        let runs: Vec<_> = self.runs().values().cloned().collect();
        runs.into_iter().filter(|r| r.lock().is_running()).collect()
    }
}
