//! `GET /api/v2/calls`: a WebSocket that carries operation calls for the browser app, each through
//! exactly the checks and envelope of `POST /api/v2/{operation}` (decision 0418).
//!
//! A `fetch` round trip in Chromium costs milliseconds of the browser's own machinery, a message on
//! an open socket a fraction of one, so the editor's keystrokes travel here. A message is
//! `{"id": n, "op": "document.edit", "body": {...}, "contract"?: "sha256:..."}`; its answer is
//! `{"id": n, "status": 200, "envelope": {...}}`, the status and envelope the POST would have
//! given. Who calls is read again from the upgrade request (credential, pairing cookie or
//! connection) for every message, so a pairing that expires or a grant revoked mid-socket stops
//! at the next call. The upgrade itself passed the Host/Origin gate like every request, and is
//! refused before it happens when the caller is not admitted.

use crate::access;
use crate::envelope::{new_request_id, ApiError};
use crate::ops::{self, Body, OpTable};
use crate::state::AppState;
use actix_web::{web, HttpRequest, HttpResponse};
use actix_ws::{AggregatedMessage, Session};
use futures_util::StreamExt;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::cell::Cell;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Duration;

/// Calls one socket may have unanswered at once; more are refused with `limit`.
pub const MAX_IN_FLIGHT: usize = 16;
/// How often an idle socket looks whether the service is stopping.
const SHUTDOWN_POLL: Duration = Duration::from_millis(250);

/// One call message.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Message<'a> {
    id: u64,
    op: String,
    #[serde(borrow)]
    body: &'a RawValue,
    #[serde(default)]
    contract: Option<String>,
}

/// The route handler: admits the caller, then upgrades and serves the socket on this worker.
pub(crate) async fn socket(
    req: HttpRequest,
    payload: web::Payload,
    state: web::Data<AppState>,
    ops: web::Data<OpTable>,
) -> HttpResponse {
    if let Err(e) = access::resolve(&req, &state) {
        return e.to_response(&new_request_id());
    }
    let (response, session, stream) = match actix_ws::handle(&req, payload) {
        Ok(parts) => parts,
        Err(e) => {
            return ApiError::invalid(None, format!("not a WebSocket upgrade: {e}"))
                .to_response(&new_request_id())
        }
    };
    let max = usize::try_from(state.limits.max_request_bytes).unwrap_or(usize::MAX);
    // A call's whole message may carry a body of maxRequestBytes plus its small frame.
    let bound = max.saturating_add(4096);
    let stream = stream
        .max_frame_size(bound)
        .aggregate_continuations()
        .max_continuation_size(bound);
    actix_web::rt::spawn(serve(
        req,
        session,
        stream,
        state.into_inner(),
        ops.into_inner(),
    ));
    response
}

async fn serve(
    req: HttpRequest,
    mut session: Session,
    mut stream: actix_ws::AggregatedMessageStream,
    state: Arc<AppState>,
    ops: Arc<OpTable>,
) {
    let in_flight = Rc::new(Cell::new(0usize));
    let mut tick = tokio::time::interval(SHUTDOWN_POLL);
    loop {
        let msg = tokio::select! {
            m = stream.next() => m,
            _ = tick.tick() => {
                if state.is_shutting_down() { break; }
                continue;
            }
        };
        match msg {
            Some(Ok(AggregatedMessage::Text(text))) => {
                let refused = match accept(&text, &state, &in_flight) {
                    Err(shape) => Some(refusal(None, &shape)),
                    Ok((id, Err(e))) => Some(refusal(Some(id), &e)),
                    Ok((id, Ok((op, body, contract)))) => {
                        let (req, state, ops) = (req.clone(), state.clone(), ops.clone());
                        let (mut session, in_flight) = (session.clone(), in_flight.clone());
                        in_flight.set(in_flight.get() + 1);
                        actix_web::rt::spawn(async move {
                            let reply = answer(&req, id, &op, body, contract, state, &ops).await;
                            in_flight.set(in_flight.get().saturating_sub(1));
                            let _ = session.text(reply).await;
                        });
                        None
                    }
                };
                if let Some(reply) = refused {
                    if session.text(reply).await.is_err() {
                        break;
                    }
                }
            }
            Some(Ok(AggregatedMessage::Ping(bytes))) => {
                if session.pong(&bytes).await.is_err() {
                    break;
                }
            }
            Some(Ok(AggregatedMessage::Binary(_))) => {
                let e = ApiError::invalid(None, "call messages are JSON text, not binary");
                if session.text(refusal(None, &e)).await.is_err() {
                    break;
                }
            }
            Some(Ok(AggregatedMessage::Pong(_))) => {}
            Some(Ok(AggregatedMessage::Close(_))) | Some(Err(_)) | None => break,
        }
    }
    let _ = session.close(None).await;
}

type Call = (String, web::Bytes, Option<String>);

/// The message's id and its call (or why the call is refused); `Err` when the message is not a
/// call at all, so it has no id to answer under.
fn accept(
    text: &str,
    state: &AppState,
    in_flight: &Cell<usize>,
) -> Result<(u64, Result<Call, ApiError>), ApiError> {
    let msg: Message<'_> = serde_json::from_str(text).map_err(|e| {
        ApiError::invalid(
            None,
            format!("a call message is {{\"id\": number, \"op\": name, \"body\": object, \"contract\"?: text}}: {e}"),
        )
    })?;
    let call = if state.is_shutting_down() {
        Err(ApiError::unavailable(&[], "the service is stopping"))
    } else if in_flight.get() >= MAX_IN_FLIGHT {
        Err(ApiError::limit("callsInFlight", MAX_IN_FLIGHT as u64))
    } else {
        let body = web::Bytes::copy_from_slice(msg.body.get().as_bytes());
        Ok((msg.op, body, msg.contract))
    };
    Ok((msg.id, call))
}

/// Runs one call exactly as the POST route does and frames its answer.
async fn answer(
    req: &HttpRequest,
    id: u64,
    op: &str,
    bytes: web::Bytes,
    contract: Option<String>,
    state: Arc<AppState>,
    ops: &OpTable,
) -> String {
    let request_id = new_request_id();
    let mut recording = None;
    let body = Body::Message {
        bytes,
        contract: contract.as_deref().map(str::as_bytes),
    };
    let result = ops::run_call(
        req,
        op,
        body,
        state.clone(),
        ops,
        &request_id,
        &mut recording,
    )
    .await;
    if let Some(r) = recording {
        ops::record(&state, r, op, &result);
    }
    match result {
        Ok(envelope) => frame(Some(id), 200, &String::from_utf8_lossy(&envelope)),
        Err(e) => frame(
            Some(id),
            e.status_code().as_u16(),
            &e.body(&request_id).to_string(),
        ),
    }
}

fn refusal(id: Option<u64>, e: &ApiError) -> String {
    frame(
        id,
        e.status_code().as_u16(),
        &e.body(&new_request_id()).to_string(),
    )
}

fn frame(id: Option<u64>, status: u16, envelope: &str) -> String {
    let id = id.map_or_else(|| "null".to_string(), |i| i.to_string());
    format!("{{\"id\":{id},\"status\":{status},\"envelope\":{envelope}}}")
}
