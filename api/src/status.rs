//! `GET /status`: a small self-contained status page (service, projects, owners, limits), and as JSON who the tab is.

use crate::access::{self, Caller, Scope};
use crate::envelope::{json_response, new_request_id, ok_bytes, ApiError};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::http::StatusCode;
use actix_web::{web, HttpRequest, HttpResponse};
use rho_actors::contract::CallerKind;
use serde_json::Value;

/// Whether the request asks for JSON (the browser app's "who am I").
fn wants_json(req: &HttpRequest) -> bool {
    req.headers()
        .get(header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Who the tab is, in the envelope: `{principal, kind, folder, version}` (`folder` is the one
/// folder a paired tab may reach, `null` for all projects).
pub fn whoami(caller: &Caller, version: &str) -> Value {
    let kind = match caller.kind {
        CallerKind::Paired => "paired",
        _ => "local",
    };
    let folder = match &caller.scope {
        Scope::Folder(f) => Value::String(f.display().to_string()),
        _ => Value::Null,
    };
    serde_json::json!({
        "principal": caller.principal.to_string(),
        "kind": kind,
        "folder": folder,
        "version": version,
    })
}

/// The route handler: the local browser and paired tabs only.
pub(crate) async fn page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    let caller = match access::resolve(&req, &state) {
        Ok(c) => c,
        Err(e) => return e.to_response(&new_request_id()),
    };
    if !matches!(caller.kind, CallerKind::Local | CallerKind::Paired) {
        return ApiError::forbidden("the status page is for the browser on this machine")
            .to_response(&new_request_id());
    }
    if wants_json(&req) {
        let value = whoami(&caller, &state.version).to_string();
        return json_response(StatusCode::OK, ok_bytes(value.as_bytes()));
    }
    let facts = (state.status)();
    let limits = serde_json::to_value(&*state.limits).unwrap_or(Value::Null);
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/html; charset=utf-8"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .insert_header((
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
        ))
        .insert_header((header::X_FRAME_OPTIONS, "DENY"))
        .insert_header((header::REFERRER_POLICY, "no-referrer"))
        .body(render(
            &state.version,
            &caller.principal.to_string(),
            &facts,
            &limits,
        ))
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn section(title: &str, value: &Value) -> String {
    let pretty = serde_json::to_string_pretty(value).unwrap_or_default();
    format!(
        "<h2>{}</h2>\n<pre>{}</pre>\n",
        escape(title),
        escape(&pretty)
    )
}

/// The page's HTML: each top-level fact as a section, then the limits in force.
pub fn render(version: &str, principal: &str, facts: &Value, limits: &Value) -> String {
    let mut sections = String::new();
    if let Value::Object(map) = facts {
        for (key, value) in map {
            sections.push_str(&section(key, value));
        }
    }
    sections.push_str(&section("limits", limits));
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
<title>Rho {v}</title>\
<style>body{{font:15px/1.4 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}}\
pre{{background:#f4f4f4;padding:.5rem;overflow:auto;max-height:24rem}}</style></head>\n<body>\n\
<h1>Rho {v} is running</h1>\n\
<p><strong>The browser app is at <a href=\"/\">/</a>.</strong> This page only shows the service's state. \
Programs use the <code>/api/v2</code> contract with the connection file.</p>\n\
<p>You are <code>{p}</code>.</p>\n{sections}</body></html>\n",
        v = escape(version),
        p = escape(principal),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn facts_are_escaped_and_the_page_points_to_the_app() {
        let html = render(
            "0.1.0",
            "local",
            &json!({"projects": [{"name": "<script>alert(1)</script>"}]}),
            &json!({"maxQueue": 32}),
        );
        assert!(html.contains("The browser app is at <a href=\"/\">/</a>"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("maxQueue"));
    }
}
