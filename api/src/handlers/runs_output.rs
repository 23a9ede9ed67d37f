//! `action.output`: one page of a run's captured stream, read from the Host's log file (never starts a Host).

use super::data::project;
use super::{mailbox, Services};
use crate::envelope::ApiError;
use crate::ops::Ctx;
use base64::Engine;
use rho_actors::runs::contract::OutputRequest;
use rho_actors::runs::state_msgs::ReadRuns;
use serde_json::{json, Value};
use std::io::{Read, Seek, SeekFrom};

/// `{bytes (base64), nextOffset, truncated, size}`; `truncated` is the Host's flag that the
/// stream wrote more than `r.maxLogBytes` (the head is kept).
pub(super) async fn output(s: &Services, ctx: &Ctx, req: OutputRequest) -> Result<Value, ApiError> {
    let stdout = match req.stream.as_str() {
        "stdout" => true,
        "stderr" => false,
        _ => {
            return Err(ApiError::invalid(
                Some("stream"),
                "stream is \"stdout\" or \"stderr\"",
            ))
        }
    };
    let page_max = s.limits.max_log_page_bytes;
    let max = req.max_bytes.unwrap_or(page_max);
    if max > page_max {
        return Err(ApiError::limit("maxLogPageBytes", page_max));
    }
    let offset = req.offset.unwrap_or(0);
    let p = project(s, ctx, &req.project_id).await?;
    let run = p
        .send(ReadRuns {
            operation_id: Some(req.operation_id.clone()),
        })
        .await
        .map_err(mailbox)??
        .pop()
        .ok_or_else(|| ApiError::not_found("run"))?;
    let dir = p
        .send(rho_actors::project_actor::Status)
        .await
        .map_err(mailbox)?
        .dir;
    let path = if stdout {
        rho_kernels::host::paths::stdout_path(&dir, &run.operation_id)
    } else {
        rho_kernels::host::paths::stderr_path(&dir, &run.operation_id)
    };
    let truncated = if stdout {
        run.stdout.truncated
    } else {
        run.stderr.truncated
    };
    let (bytes, size) = tokio::task::spawn_blocking(move || read_page(&path, offset, max))
        .await
        .map_err(ApiError::internal)?
        .map_err(ApiError::internal)?;
    Ok(json!({
        "bytes": base64::engine::general_purpose::STANDARD.encode(&bytes),
        "encoding": "base64",
        "offset": offset,
        "nextOffset": offset + bytes.len() as u64,
        "size": size,
        "truncated": truncated,
    }))
}

/// At most `max` bytes from `offset`, and the file's size (a missing log is empty).
pub(crate) fn read_page(
    path: &std::path::Path,
    offset: u64,
    max: u64,
) -> Result<(Vec<u8>, u64), String> {
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
