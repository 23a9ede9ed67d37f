//! `action.output`: check the stream and page bound, send one message, render the page as base64.

use super::data::project;
use super::services::{mailbox, Services};
use crate::envelope::ApiError;
use crate::ops::Ctx;
use base64::Engine;
use rho_actors::runs::contract::{OutputPage, OutputRequest, PageEncoding};
use rho_actors::runs::handlers::output::{ReadRunOutput, Stream};

/// `{bytes (base64), nextOffset, truncated, size}`; `truncated` is the Host's flag that the
/// stream wrote more than `r.maxLogBytes` (the head is kept).
pub(super) async fn output(
    s: &Services,
    ctx: &Ctx,
    req: OutputRequest,
) -> Result<OutputPage, ApiError> {
    let stream = match req.stream.as_str() {
        "stdout" => Stream::Stdout,
        "stderr" => Stream::Stderr,
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
    let page = p
        .send(ReadRunOutput {
            operation_id: req.operation_id,
            stream,
            offset,
            max,
        })
        .await
        .map_err(mailbox)??;
    Ok(OutputPage {
        bytes: base64::engine::general_purpose::STANDARD.encode(&page.bytes),
        encoding: PageEncoding::Base64,
        next_offset: offset + page.bytes.len() as u64,
        offset,
        size: page.size,
        truncated: page.truncated,
    })
}
