//! `GET /api/v2/projects/{projectId}/resources/{resourceId}/{version}`: one resource version's bytes for the browser (type, ETag, one Range, nosniff, a sandboxing CSP).
//!
//! The caller is checked as for `resource.read` (local, operator or a paired tab within its
//! folder; an Agent reads bytes with `resource.read`, whose calls are recorded), then the Files
//! owner's byte reader registered in the [`OpTable`] answers; this file only maps its reply to
//! HTTP.

use crate::envelope::{new_request_id, ApiError};
use crate::ops::OpTable;
use crate::state::AppState;
use actix_web::http::{header, StatusCode};
use actix_web::{web, HttpRequest, HttpResponse};

/// The policy of every byte reply: opened as a page, it runs nothing and loads nothing.
pub const BYTES_CSP: &str = "sandbox; default-src 'none'";

/// The media type of a declared format (`application/octet-stream` for anything else).
pub fn content_type(format: &str) -> &'static str {
    match format {
        "png" => "image/png",
        "jpeg" | "jpg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "pdf" => "application/pdf",
        "csv" => "text/csv; charset=utf-8",
        "json" | "json-rows" => "application/json",
        _ => "application/octet-stream",
    }
}

/// One `Range: bytes=...` of `total` bytes: `None` to serve everything (absent, several ranges
/// or a unit other than bytes), `Some(Err(()))` when it cannot be satisfied, else the inclusive
/// first and last byte.
pub fn range(value: Option<&str>, total: u64) -> Option<Result<(u64, u64), ()>> {
    let spec = value?.trim().strip_prefix("bytes=")?;
    if spec.contains(',') {
        return None;
    }
    let (a, b) = spec.split_once('-')?;
    let (a, b) = (a.trim(), b.trim());
    let parsed = match (a.is_empty(), b.is_empty()) {
        (true, true) => return Some(Err(())),
        // The last `b` bytes.
        (true, false) => match b.parse::<u64>() {
            Ok(0) | Err(_) => return Some(Err(())),
            Ok(n) => (total.saturating_sub(n), total.saturating_sub(1)),
        },
        (false, _) => {
            let Ok(first) = a.parse::<u64>() else {
                return Some(Err(()));
            };
            let last = if b.is_empty() {
                total.saturating_sub(1)
            } else {
                match b.parse::<u64>() {
                    Ok(l) if l >= first => l.min(total.saturating_sub(1)),
                    _ => return Some(Err(())),
                }
            };
            (first, last)
        }
    };
    if total == 0 || parsed.0 >= total {
        return Some(Err(()));
    }
    Some(Ok(parsed))
}

/// The route handler.
pub(crate) async fn get(
    req: HttpRequest,
    state: web::Data<AppState>,
    ops: web::Data<OpTable>,
) -> HttpResponse {
    let request_id = new_request_id();
    match serve(&req, state.into_inner(), &ops, &request_id).await {
        Ok(r) => r,
        Err(e) => e.to_response(&request_id),
    }
}

async fn serve(
    req: &HttpRequest,
    state: std::sync::Arc<AppState>,
    ops: &OpTable,
    request_id: &str,
) -> Result<HttpResponse, ApiError> {
    let m = req.match_info();
    let project = m.get("projectId").unwrap_or_default().to_string();
    let resource = m.get("resourceId").unwrap_or_default().to_string();
    let version = m
        .get("version")
        .and_then(|v| v.parse::<u64>().ok())
        .ok_or_else(|| ApiError::invalid(Some("version"), "a version is a number"))?;
    let (ctx, read) = ops.admit_bytes(req, state, &project, request_id)?;
    let raw = read(ctx, project, resource, version).await?;
    let etag = format!("\"{}\"", raw.sha256);
    let out = |status: StatusCode| {
        let mut r = HttpResponse::build(status);
        r.insert_header((header::ETAG, etag.clone()))
            .insert_header((header::CACHE_CONTROL, "private, no-cache"))
            .insert_header((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
            .insert_header((header::CONTENT_SECURITY_POLICY, BYTES_CSP))
            .insert_header((header::ACCEPT_RANGES, "bytes"));
        r
    };
    let matches = req
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.split(',').any(|t| t.trim() == etag || t.trim() == "*"));
    if matches {
        return Ok(out(StatusCode::NOT_MODIFIED).finish());
    }
    let total = raw.bytes.len() as u64;
    let asked = req
        .headers()
        .get(header::RANGE)
        .and_then(|v| v.to_str().ok());
    let kind = content_type(&raw.format);
    Ok(match range(asked, total) {
        None => out(StatusCode::OK)
            .insert_header((header::CONTENT_TYPE, kind))
            .body(raw.bytes),
        Some(Ok((first, last))) => {
            let (a, b) = (first as usize, last as usize + 1);
            out(StatusCode::PARTIAL_CONTENT)
                .insert_header((header::CONTENT_TYPE, kind))
                .insert_header((
                    header::CONTENT_RANGE,
                    format!("bytes {first}-{last}/{total}"),
                ))
                .body(raw.bytes[a..b].to_vec())
        }
        Some(Err(())) => {
            // In the envelope (an error is always JSON), with the size the client may ask within.
            let e = ApiError::invalid(
                Some("Range"),
                format!("the range is outside the {total} bytes"),
            );
            let mut r = e.to_response(request_id);
            *r.status_mut() = StatusCode::RANGE_NOT_SATISFIABLE;
            if let Ok(v) = header::HeaderValue::from_str(&format!("bytes */{total}")) {
                r.headers_mut().insert(header::CONTENT_RANGE, v);
            }
            r
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_of_one_part_and_what_cannot_be_satisfied() {
        assert_eq!(range(None, 10), None);
        assert_eq!(range(Some("bytes=0-3"), 10), Some(Ok((0, 3))));
        assert_eq!(range(Some("bytes=4-"), 10), Some(Ok((4, 9))));
        assert_eq!(range(Some("bytes=-3"), 10), Some(Ok((7, 9))));
        assert_eq!(range(Some("bytes=-30"), 10), Some(Ok((0, 9))));
        assert_eq!(range(Some("bytes=5-100"), 10), Some(Ok((5, 9))));
        assert_eq!(range(Some("bytes=10-"), 10), Some(Err(())));
        assert_eq!(range(Some("bytes=5-4"), 10), Some(Err(())));
        assert_eq!(range(Some("bytes=-0"), 10), Some(Err(())));
        assert_eq!(range(Some("bytes=x-1"), 10), Some(Err(())));
        assert_eq!(range(Some("bytes=0-"), 0), Some(Err(())));
        // Several ranges or another unit: the whole body.
        assert_eq!(range(Some("bytes=0-1,4-5"), 10), None);
        assert_eq!(range(Some("items=0-1"), 10), None);
    }

    #[test]
    fn formats_name_their_media_type() {
        assert_eq!(content_type("pdf"), "application/pdf");
        assert_eq!(content_type("svg"), "image/svg+xml");
        assert_eq!(content_type("exe"), "application/octet-stream");
    }
}
