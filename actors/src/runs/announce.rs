//! `run.output`: while a run is watched, its growing logs are announced (at most one event per stream every [`EVERY`]).
//!
//! The Runs panel follows a log by reading `action.output` pages when this says there are new
//! bytes, instead of polling. The event carries only the stream's length, never its bytes.

use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// The rate bound: a stream that grows is announced at most once per this interval.
pub const EVERY: std::time::Duration = std::time::Duration::from_millis(250);

/// One stream grew to `length` bytes.
#[derive(Message)]
#[rtype(result = "()")]
pub(crate) struct AnnounceOutput {
    pub operation_id: String,
    pub stream: &'static str,
    pub length: u64,
}

impl Handler<AnnounceOutput> for ProjectActor {
    type Result = ();

    fn handle(&mut self, msg: AnnounceOutput, _: &mut Context<Self>) {
        if let Some(bus) = self.events() {
            bus.publish(
                "run.output",
                Some(self.project_id()),
                serde_json::json!({"operationId": msg.operation_id, "stream": msg.stream, "length": msg.length}),
            );
        }
    }
}

fn size(path: &std::path::Path) -> u64 {
    std::fs::metadata(path).map_or(0, |m| m.len())
}

/// Checks the run's two logs every [`EVERY`] until `done` is set, and once more after, and
/// announces each growth. Ends when the project actor is gone.
pub(crate) fn follow(me: Addr<ProjectActor>, dir: PathBuf, op: String, done: Arc<AtomicBool>) {
    actix::spawn(async move {
        let streams = [
            ("stdout", rho_kernels::host::paths::stdout_path(&dir, &op)),
            ("stderr", rho_kernels::host::paths::stderr_path(&dir, &op)),
        ];
        let mut known = [0u64; 2];
        loop {
            let last = done.load(Ordering::SeqCst);
            for (i, (stream, path)) in streams.iter().enumerate() {
                let now = size(path);
                if now > known[i] {
                    known[i] = now;
                    let msg = AnnounceOutput {
                        operation_id: op.clone(),
                        stream,
                        length: now,
                    };
                    if me.send(msg).await.is_err() {
                        return;
                    }
                }
            }
            if last {
                return;
            }
            tokio::time::sleep(EVERY).await;
        }
    });
}
