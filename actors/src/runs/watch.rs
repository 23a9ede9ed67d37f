//! Supervision of delivered runs: a long poll on the Host until each run ends (one watcher per
//! run per service), journaling what changes.

use super::entity::RunEvent;
use super::handlers::state::LearnRun;
use super::host::{self, HostAnswer};
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::host::proto::HostRequest;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The runs one service watches (project folder, operationId): one watcher each (a clone is
/// the same set).
#[derive(Debug, Clone, Default)]
pub struct Watched(Arc<Mutex<BTreeSet<(PathBuf, String)>>>);

impl Watched {
    /// Claims run `op` of `dir` for one follower: `None` when another follows it, else what
    /// releases the claim.
    pub(crate) fn claim(&self, dir: &Path, op: &str) -> Option<impl FnOnce() + Send + 'static> {
        let key = (dir.to_path_buf(), op.to_string());
        if !self.0.lock().ok()?.insert(key.clone()) {
            return None;
        }
        let set = self.clone();
        Some(move || {
            if let Ok(mut w) = set.0.lock() {
                w.remove(&key);
            }
        })
    }
}

/// Asks the Host on a plain thread (not the runtime's blocking pool, which a stopping service
/// would wait for while a long poll is pending).
pub(crate) async fn ask(
    dir: &Path,
    request: HostRequest,
    timeout: std::time::Duration,
) -> HostAnswer {
    let d = dir.to_path_buf();
    let (tx, rx) = tokio::sync::oneshot::channel();
    let spawned = std::thread::Builder::new()
        .name("host-ask".into())
        .spawn(move || {
            let _ = tx.send(host::ask(&d, &request, timeout));
        });
    if let Err(e) = spawned {
        return HostAnswer::Lost(e.to_string());
    }
    rx.await
        .unwrap_or_else(|_| HostAnswer::Lost("the asking thread ended".into()))
}

/// Watches one run until the Host reports its end (journaling what changes), or until no Host
/// answers (then its execution is unknown); a run that already has a watcher in `watched` is
/// left to it.
pub(crate) fn watch(me: Addr<ProjectActor>, dir: PathBuf, op: String, watched: &Watched) {
    let key = (dir.clone(), op.clone());
    let watched = watched.clone();
    if let Ok(mut w) = watched.0.lock() {
        if !w.insert(key.clone()) {
            return;
        }
    }
    let over = Arc::new(std::sync::atomic::AtomicBool::new(false));
    super::announce::follow(me.clone(), dir.clone(), op.clone(), over.clone());
    actix::spawn(async move {
        loop {
            let answer = ask(
                &dir,
                HostRequest::Wait {
                    operation_id: op.clone(),
                    timeout_ms: host::WAIT_POLL.as_millis() as u64,
                },
                host::WAIT_POLL + host::REQUEST_TIMEOUT,
            )
            .await;
            let (event, done) = match answer {
                HostAnswer::Record(r) => {
                    let o = host::observation(&r);
                    let done = o.execution.is_over();
                    (
                        RunEvent::Observed {
                            operation_id: op.clone(),
                            observation: o,
                        },
                        done,
                    )
                }
                HostAnswer::NoHost(_) | HostAnswer::NotFound => (
                    RunEvent::ExecutionUnknown {
                        operation_id: op.clone(),
                    },
                    true,
                ),
                HostAnswer::Lost(reason) | HostAnswer::Refused(reason) => {
                    tracing::warn!(operation = %op, %reason, "waiting on the Host failed; asking again");
                    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
                    continue;
                }
            };
            match me.send(LearnRun { event }).await {
                Ok(Ok(_)) => {}
                // The project closed or its journal stopped: leave the run to recovery.
                _ => break,
            }
            if done {
                break;
            }
        }
        over.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Ok(mut w) = watched.0.lock() {
            w.remove(&key);
        }
    });
}
