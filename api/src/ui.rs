//! `GET /`, the app's paths and `/assets/*`: the browser app from `ui/dist` (embedded in release builds), with its CSP.
//!
//! Release builds embed the folder; debug builds read it live, so `vite build --watch` and a
//! debug `rho` show changes on reload. The page itself holds no data: every fact comes from
//! `/api/v2`, which checks the caller, so the files need no credential (a bad one is met by the
//! app's access screen). `index.html` is `no-cache`; hashed assets are immutable with an ETag.

use crate::envelope::{new_request_id, ApiError};
use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse};
use rust_embed::{Embed, EmbeddedFile};

#[derive(Embed)]
// Relative to this crate (api/), i.e. the repository's ui/dist.
#[folder = "../ui/dist"]
struct Dist;

/// The app's Content-Security-Policy: only this origin, `blob:` images, inline styles (the
/// editor injects its own), no eval, no plugins, no framing.
pub const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
img-src 'self' blob:; connect-src 'self'; worker-src 'self' blob:; object-src 'none'; \
base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

fn mime(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, ext)| ext) {
        Some("js" | "mjs") => "text/javascript; charset=utf-8",
        Some("css") => "text/css; charset=utf-8",
        Some("html") => "text/html; charset=utf-8",
        Some("json" | "map") => "application/json",
        Some("svg") => "image/svg+xml",
        Some("png") => "image/png",
        Some("woff2") => "font/woff2",
        Some("wasm") => "application/wasm",
        _ => "application/octet-stream",
    }
}

fn etag(file: &EmbeddedFile) -> String {
    let hash = file.metadata.sha256_hash();
    let hex: String = hash[..16].iter().map(|b| format!("{b:02x}")).collect();
    format!("\"{hex}\"")
}

fn not_modified(req: &HttpRequest, tag: &str) -> bool {
    req.headers()
        .get_all(header::IF_NONE_MATCH)
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .any(|t| t.trim() == tag || t.trim() == "*")
}

fn respond(
    req: &HttpRequest,
    path: &str,
    file: &EmbeddedFile,
    cache: &'static str,
) -> HttpResponse {
    let tag = etag(file);
    let mut res = if not_modified(req, &tag) {
        HttpResponse::NotModified().finish()
    } else {
        HttpResponse::Ok()
            .insert_header((header::CONTENT_TYPE, mime(path)))
            .body(file.data.clone().into_owned())
    };
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(v) = HeaderValue::from_str(&tag) {
        h.insert(header::ETAG, v);
    }
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    res
}

/// `/` and the app's own paths: `index.html`, revalidated on every load.
pub(crate) async fn index(req: HttpRequest) -> HttpResponse {
    match Dist::get("index.html") {
        Some(file) => respond(&req, "index.html", &file, "no-cache"),
        None => ApiError::unavailable(
            &[],
            "the browser app is not built: run scripts/ui-build.sh (the status page is at /status)",
        )
        .to_response(&new_request_id()),
    }
}

/// `/assets/{name}`: a hashed build file, cached for good; an unknown one is `not_found`.
pub(crate) async fn asset(req: HttpRequest) -> HttpResponse {
    let name = req.match_info().get("name").unwrap_or_default();
    let path = format!("assets/{name}");
    match Dist::get(&path) {
        Some(file) if !name.contains("..") => {
            respond(&req, &path, &file, "public, max-age=31536000, immutable")
        }
        _ => ApiError::not_found("asset")
            .with_status(StatusCode::NOT_FOUND)
            .to_response(&new_request_id()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_csp_forbids_eval_framing_and_other_origins() {
        assert!(!CSP.contains("unsafe-eval"));
        assert!(CSP.contains("frame-ancestors 'none'"));
        assert!(CSP.contains("default-src 'self'"));
        assert!(!CSP.contains('*'));
    }

    #[test]
    fn types_by_extension() {
        assert!(mime("assets/index-abc.js").starts_with("text/javascript"));
        assert!(mime("assets/index-abc.css").starts_with("text/css"));
        assert_eq!(mime("assets/x"), "application/octet-stream");
    }
}
