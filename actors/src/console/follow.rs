//! Following a live command's files until it ends: output growth is announced (coalesced), the
//! exit record is journaled, a guard that vanished without one makes the command `unknown`.
//!
//! One follower per command per service ([`Followed`]), also across a project's reopen.

use super::entity::{CommandRecord, ConsoleEvent};
use super::handlers::state::{AnnounceProgress, LearnCommand};
use super::{output, process};
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::console::files;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// The commands one service follows (record folder): one follower each.
#[derive(Debug, Clone, Default)]
pub struct Followed(Arc<Mutex<BTreeSet<PathBuf>>>);

/// How often the files are looked at (a guard this service started also wakes its follower
/// when it ends, so the end is seen at once; a guard followed after a restart is not our child).
const POLL: Duration = Duration::from_millis(50);
/// Output progress is announced at most this often.
pub const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// How often the guard's liveness is checked.
const ALIVE_EVERY: Duration = Duration::from_millis(200);

/// The files' sizes: a cheap sign that output was written.
fn kept_size(dir: &std::path::Path) -> u64 {
    let size = |p: PathBuf| std::fs::metadata(p).map_or(0, |m| m.len());
    size(files::output_path(dir)) + size(files::tail_path(dir))
}

/// Follows `record` (started, live) until it ends; a command already followed is left alone.
pub(crate) fn follow(
    me: Addr<ProjectActor>,
    project: PathBuf,
    record: CommandRecord,
    followed: &Followed,
    guard_ended: Option<process::GuardEnded>,
) {
    let dir = files::record_dir(&project, &record.command_id);
    if let Ok(mut f) = followed.0.lock() {
        if !f.insert(dir.clone()) {
            return;
        }
    }
    let Some(started) = record.started.clone() else {
        return;
    };
    let followed = followed.clone();
    actix::spawn(async move {
        let id = record.command_id.clone();
        let mut known = 0u64;
        let mut announced = Instant::now() - PROGRESS_EVERY;
        let mut checked = Instant::now();
        loop {
            let event = if let Some(e) = files::read_exit(&dir) {
                Some(ConsoleEvent::Ended {
                    command_id: id.clone(),
                    ended: process::ended(&e),
                })
            } else if checked.elapsed() >= ALIVE_EVERY {
                checked = Instant::now();
                // Looked at again after the check: the guard may have ended just before it.
                (!process::guard_alive(&started) && files::read_exit(&dir).is_none()).then(|| {
                    ConsoleEvent::Unknown {
                        command_id: id.clone(),
                        reason: "its guard ended without an exit record".into(),
                    }
                })
            } else {
                None
            };
            if let Some(event) = event {
                let _ = me.send(LearnCommand { event }).await;
                break;
            }
            let now = kept_size(&dir);
            if now != known && announced.elapsed() >= PROGRESS_EVERY {
                known = now;
                announced = Instant::now();
                let d = dir.clone();
                let end = tokio::task::spawn_blocking(move || output::end(&d))
                    .await
                    .unwrap_or(0);
                let msg = AnnounceProgress {
                    record: record.clone(),
                    output_bytes: end,
                };
                if me.send(msg).await.is_err() {
                    break;
                }
            }
            match &guard_ended {
                Some(n) => {
                    let _ = tokio::time::timeout(POLL, n.notified()).await;
                }
                None => tokio::time::sleep(POLL).await,
            }
        }
        if let Ok(mut f) = followed.0.lock() {
            f.remove(&dir);
        }
    });
}
