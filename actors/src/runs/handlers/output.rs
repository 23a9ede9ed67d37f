//! `action.output` for the actor: one page of a run's captured stream, read from the Host's log file (never starts a Host).

use super::state::one_run;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// Which captured stream of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// At most `max` bytes of a run's stream from `offset` (bounds checked by the edge).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<LogPage, ActorError>")]
pub struct ReadRunOutput {
    pub operation_id: String,
    pub stream: Stream,
    pub offset: u64,
    pub max: u64,
}

/// One page of a captured stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogPage {
    pub bytes: Vec<u8>,
    /// The log file's size (a missing log is empty).
    pub size: u64,
    /// The Host's flag that the stream wrote more than `r.maxLogBytes` (the head is kept).
    pub truncated: bool,
}

impl Handler<ReadRunOutput> for ProjectActor {
    type Result = ResponseFuture<Result<LogPage, ActorError>>;

    fn handle(&mut self, msg: ReadRunOutput, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        Box::pin(async move {
            let run = one_run(&me, &msg.operation_id).await?;
            let (path, truncated) = match msg.stream {
                Stream::Stdout => (
                    rho_kernels::host::paths::stdout_path(&dir, &run.operation_id),
                    run.stdout.truncated,
                ),
                Stream::Stderr => (
                    rho_kernels::host::paths::stderr_path(&dir, &run.operation_id),
                    run.stderr.truncated,
                ),
            };
            let (offset, max) = (msg.offset, msg.max);
            let (bytes, size) = tokio::task::spawn_blocking(move || read_page(&path, offset, max))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
                .map_err(ActorError::internal)?;
            Ok(LogPage {
                bytes,
                size,
                truncated,
            })
        })
    }
}

/// At most `max` bytes from `offset`, and the file's size (a missing log is empty).
fn read_page(path: &Path, offset: u64, max: u64) -> Result<(Vec<u8>, u64), String> {
    let mut f = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), 0)),
        Err(e) => return Err(format!("{}: {e}", path.display())),
    };
    let size = f.metadata().map_err(|e| e.to_string())?.len();
    if offset >= size {
        return Ok((Vec::new(), size));
    }
    f.seek(SeekFrom::Start(offset)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    f.take(max)
        .read_to_end(&mut out)
        .map_err(|e| e.to_string())?;
    Ok((out, size))
}
