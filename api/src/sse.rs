//! `GET /api/v2/events`: the event bus as Server-Sent Events, filtered by principal, resumable by cursor.
//!
//! Frames: `id: <cursor>` / `event: <kind>` / `data: <json>`. A cursor that no longer leads to
//! a complete history gets one `event: gap` frame with `{requested, oldest}` and the stream
//! ends; the client takes a new `observation.snapshot`. `Last-Event-ID` (what a reconnecting
//! EventSource sends) wins over the `cursor` query parameter, which the browser repeats from the
//! original URL.

use crate::access::{self, Scope};
use crate::envelope::{new_request_id, ApiError};
use crate::state::AppState;
use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse};
use rho_actors::events::{Delivery, Event, Gap, SubscribeError, Subscription};
use serde::Deserialize;
use std::convert::Infallible;
use std::time::Duration;
use uuid::Uuid;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EventsQuery {
    project_id: Option<String>,
    cursor: Option<String>,
}

/// The route handler.
pub(crate) async fn events(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    match open(&req, &state) {
        Ok(sub) => stream(sub, state.keep_alive),
        Err(e) => e.to_response(&new_request_id()),
    }
}

fn open(req: &HttpRequest, state: &AppState) -> Result<Subscription, ApiError> {
    let caller = access::resolve(req, state)?;
    let query = web::Query::<EventsQuery>::from_query(req.query_string())
        .map_err(|e| ApiError::invalid(None, format!("the query string is not valid: {e}")))?
        .into_inner();
    let narrow = match query.project_id {
        None => None,
        Some(p) => Some(
            p.parse::<Uuid>()
                .map_err(|_| ApiError::invalid(Some("projectId"), "projectId must be a UUID"))?,
        ),
    };
    match (&caller.scope, narrow) {
        (Scope::Project(granted), Some(p)) if *granted != p => {
            return Err(ApiError::not_found("project"))
        }
        (Scope::Folder(folder), Some(p)) if !(state.folder_scope)(folder, p) => {
            return Err(ApiError::not_found("project"))
        }
        _ => {}
    }
    let last_event_id = req
        .headers()
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let cursor = last_event_id.or(query.cursor);
    let folder_scope = state.folder_scope.clone();
    let scope = caller.scope;
    let filter = move |e: &Event| {
        if narrow.is_some() && e.project != narrow {
            return false;
        }
        match &scope {
            Scope::All => true,
            Scope::Project(p) => e.project == Some(*p),
            Scope::Folder(f) => e.project.is_some_and(|p| folder_scope(f, p)),
        }
    };
    state
        .events
        .subscribe(cursor.as_deref(), filter)
        .map_err(|e| match e {
            SubscribeError::TooMany { max } => ApiError::limit("maxSubscriptions", max),
            SubscribeError::Closed => ApiError::unavailable(&[], "the service is stopping"),
        })
}

fn one_line(s: &str) -> String {
    s.replace(['\r', '\n'], " ")
}

/// One SSE frame for an event.
pub fn event_frame(e: &Event) -> Bytes {
    Bytes::from(format!(
        "id: {}\nevent: {}\ndata: {}\n\n",
        one_line(&e.cursor),
        one_line(&e.kind),
        one_line(&e.data)
    ))
}

/// The gap frame that ends a stream.
pub fn gap_frame(g: &Gap) -> Bytes {
    let data = serde_json::to_string(g).unwrap_or_else(|_| "{}".into());
    Bytes::from(format!("event: gap\ndata: {}\n\n", one_line(&data)))
}

fn stream(sub: Subscription, keep_alive: Duration) -> HttpResponse {
    let opening = futures_util::stream::once(async { Ok(Bytes::from_static(b": open\n\n")) });
    let frames = futures_util::stream::unfold(Some(sub), move |sub| async move {
        let mut sub = sub?;
        match tokio::time::timeout(keep_alive, sub.next()).await {
            Err(_) => Some((Ok(Bytes::from_static(b": keep-alive\n\n")), Some(sub))),
            Ok(Some(Delivery::Event(e))) => Some((Ok(event_frame(&e)), Some(sub))),
            Ok(Some(Delivery::Gap(g))) => Some((Ok(gap_frame(&g)), None)),
            Ok(None) => None,
        }
    });
    let body = futures_util::StreamExt::chain(opening, frames);
    HttpResponse::Ok()
        .insert_header((header::CONTENT_TYPE, "text/event-stream"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .streaming::<_, Infallible>(body)
}
