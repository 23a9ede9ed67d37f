//! A run context (`context.create {run:{operationId}}`): what a run was when the context froze it.

use super::contract::{FrozenExitView, RunContextView, StderrTail};
use super::model::*;
use serde::{Deserialize, Serialize};

/// Bytes of stderr a run context keeps (its tail).
pub const STDERR_TAIL: u64 = 8 * 1024;

/// The frozen facts of one run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunContext {
    pub operation_id: String,
    pub delivery: String,
    pub execution: Option<String>,
    pub exit: Option<ExitFacts>,
    pub stop: Option<StopFacts>,
    pub script: ScriptRef,
    pub script_digest: String,
    pub args: Vec<ResolvedArg>,
    pub artifacts: Vec<ArtifactDecl>,
    /// The last bytes of stderr (lossy UTF-8), from `stderr_offset`.
    pub stderr_tail: String,
    pub stderr_offset: u64,
    /// The Core's flag: the stream wrote more than `r.maxLogBytes` and only its head was kept.
    pub stderr_truncated: bool,
}

impl RunContext {
    /// Freezes `run` with the tail of its stderr log (blocking read of at most 8 KiB).
    pub fn freeze(run: &RunRecord, stderr_log: &std::path::Path) -> RunContext {
        use std::io::{Read, Seek, SeekFrom};
        let (tail, offset) = match std::fs::File::open(stderr_log) {
            Ok(mut f) => {
                let size = f.metadata().map(|m| m.len()).unwrap_or(0);
                let from = size.saturating_sub(STDERR_TAIL);
                let mut buf = Vec::new();
                let _ = f
                    .seek(SeekFrom::Start(from))
                    .and_then(|_| f.take(STDERR_TAIL).read_to_end(&mut buf));
                (String::from_utf8_lossy(&buf).into_owned(), from)
            }
            Err(_) => (String::new(), 0),
        };
        RunContext {
            operation_id: run.operation_id.clone(),
            delivery: super::render::delivery(run).to_string(),
            execution: super::render::execution_name(super::render::execution(run))
                .map(str::to_string),
            exit: run.exit.clone(),
            stop: run.stop.clone(),
            script: run.plan.script.clone(),
            script_digest: run.plan.script_digest.clone(),
            args: run.plan.args.clone(),
            artifacts: run.plan.artifacts.clone(),
            stderr_tail: tail,
            stderr_offset: offset,
            stderr_truncated: run.stderr.truncated,
        }
    }

    /// Bytes kept (for `maxContextBytes`).
    pub fn bytes(&self) -> u64 {
        (self.stderr_tail.len()
            + self.operation_id.len()
            + self.args.iter().map(|a| a.text().len()).sum::<usize>()
            + 512) as u64
    }

    /// The wire form.
    pub fn view(&self) -> RunContextView {
        RunContextView {
            args: super::render::args(&self.args),
            artifacts: super::render::artifacts(&self.artifacts),
            delivery: self.delivery.clone(),
            execution: self.execution.clone(),
            exit: self.exit.as_ref().map(|e| FrozenExitView {
                exit_code: e.exit_code,
                signal: e.signal,
                spawn_error: e.spawn_error.clone(),
            }),
            operation_id: self.operation_id.clone(),
            script: super::render::script(&self.script),
            script_digest: self.script_digest.clone(),
            stderr: StderrTail {
                offset: self.stderr_offset,
                text: self.stderr_tail.clone(),
                truncated: self.stderr_truncated,
            },
            stop: self.stop.as_ref().map(super::render::stop),
        }
    }
}

/// Freezes a run for a context: its record and stderr tail (never asks or starts a Host).
#[derive(actix::Message)]
#[rtype(result = "Result<RunContext, crate::ActorError>")]
pub struct FreezeRun {
    pub operation_id: String,
}

impl actix::Handler<FreezeRun> for crate::project_actor::ProjectActor {
    type Result = actix::ResponseFuture<Result<RunContext, crate::ActorError>>;

    fn handle(&mut self, msg: FreezeRun, ctx: &mut actix::Context<Self>) -> Self::Result {
        use actix::AsyncContext;
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        Box::pin(async move {
            let run = me
                .send(super::handlers::state::ReadRuns {
                    operation_id: Some(msg.operation_id),
                })
                .await
                .map_err(|e| crate::ActorError::internal(e.to_string()))??
                .pop()
                .ok_or_else(|| crate::ActorError::NotFound { what: "run".into() })?;
            let log = rho_kernels::host::paths::stderr_path(&dir, &run.operation_id);
            tokio::task::spawn_blocking(move || RunContext::freeze(&run, &log))
                .await
                .map_err(|e| crate::ActorError::internal(e.to_string()))
        })
    }
}
