//! `GET /`: a small self-contained status page (service, projects, owners, limits) until the browser app lands.

use crate::access;
use crate::envelope::{new_request_id, ApiError};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::{web, HttpRequest, HttpResponse};
use rho_actors::contract::CallerKind;
use serde_json::Value;

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
<p><strong>The browser app is not built yet.</strong> This page only shows the service's state. \
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
    fn facts_are_escaped_and_the_page_says_the_app_is_not_built() {
        let html = render(
            "0.1.0",
            "local",
            &json!({"projects": [{"name": "<script>alert(1)</script>"}]}),
            &json!({"maxQueue": 32}),
        );
        assert!(html.contains("not built yet"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(html.contains("maxQueue"));
    }
}
