//! The HTTP server: routes, the gate every request passes (shutdown, Host/Origin), and the envelope safety net.

use crate::access;
use crate::envelope::{code_for_status, new_request_id, ApiError, Code};
use crate::ops::OpTable;
use crate::state::AppState;
use crate::{bytes, calls, ops, pair, peer, sse, status, ui};
use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{Server, ServiceRequest, ServiceResponse};
use actix_web::http::{header, StatusCode};
use actix_web::middleware::{from_fn, Next};
use actix_web::{web, App, HttpResponse, HttpServer};
use std::net::TcpListener;

/// Serves `state` and the operations of `ops` on an already bound `listener` (the caller binds
/// 127.0.0.1 and remembers the port). Signals are not handled here: on SIGINT/SIGTERM call
/// [`AppState::begin_shutdown`], then `Server::handle().stop(true)`, and await the server.
pub fn serve(listener: TcpListener, mut state: AppState, ops: OpTable) -> std::io::Result<Server> {
    let addr = listener.local_addr()?;
    state.port = addr.port();
    let data = web::Data::new(state);
    let ops = web::Data::new(ops);
    let server = HttpServer::new(move || {
        App::new()
            .app_data(data.clone())
            .app_data(ops.clone())
            .wrap(from_fn(gate))
            .configure(routes)
    })
    .on_connect(peer::on_connect)
    .disable_signals()
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    tracing::info!(%addr, "HTTP edge listening");
    Ok(server)
}

/// Every route of the edge.
pub fn routes(cfg: &mut web::ServiceConfig) {
    cfg.service(
        web::resource(["/", "/p/{tail:.*}"])
            .route(web::get().to(ui::index))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/assets/{name:.*}")
            .route(web::get().to(ui::asset))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/status")
            .route(web::get().to(status::page))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/pair/{token}")
            .route(web::get().to(pair::redeem))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/api/v2/events")
            .route(web::get().to(sse::events))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/api/v2/calls")
            .route(web::get().to(calls::socket))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/api/v2/projects/{projectId}/resources/{resourceId}/{version}")
            .route(web::get().to(bytes::get))
            .default_service(web::to(|| async { method_not_allowed("GET") })),
    )
    .service(
        web::resource("/api/v2/{operation}")
            .route(web::post().to(ops::call))
            .default_service(web::to(|| async { method_not_allowed("POST") })),
    )
    .default_service(web::to(|| async {
        ApiError::not_found("route").to_response(&new_request_id())
    }));
}

fn method_not_allowed(allowed: &'static str) -> HttpResponse {
    let mut response = ApiError::invalid(None, format!("this route only answers {allowed}"))
        .with_status(StatusCode::METHOD_NOT_ALLOWED)
        .to_response(&new_request_id());
    response
        .headers_mut()
        .insert(header::ALLOW, header::HeaderValue::from_static(allowed));
    response
}

/// Runs before every route: the shutdown gate first, then Host/Origin/Sec-Fetch-Site; after
/// the route, any error response that is not JSON becomes the envelope.
async fn gate(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<web::Data<AppState>>().cloned() else {
        let e = ApiError::internal("AppState missing from the app");
        return Ok(req.into_response(e.to_response(&new_request_id())));
    };
    if state.is_shutting_down() {
        let e = ApiError::unavailable(&[], "the service is stopping");
        return Ok(req.into_response(e.to_response(&new_request_id())));
    }
    let authority = req.uri().authority().map(|a| a.as_str().to_string());
    if let Err(e) = access::check_origin(req.headers(), authority.as_deref(), state.port) {
        return Ok(req.into_response(e.to_response(&new_request_id())));
    }
    match next.call(req).await {
        Ok(res) => Ok(safety_net(res.map_into_boxed_body())),
        Err(e) => {
            // Rendered by `ApiError`'s `ResponseError`, so still the envelope.
            let status = e.as_response_error().status_code();
            tracing::debug!(error = %e, "route error");
            Err(generic_error(status).into())
        }
    }
}

fn is_json(res: &ServiceResponse<BoxBody>) -> bool {
    res.headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/json"))
}

fn safety_net(res: ServiceResponse<BoxBody>) -> ServiceResponse<BoxBody> {
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&res) {
        return res;
    }
    if let Some(e) = res.response().error() {
        tracing::debug!(error = %e, "framework error replaced by the envelope");
    }
    res.into_response(generic(status))
}

/// The envelope for an error status the framework produced.
fn generic(status: StatusCode) -> HttpResponse {
    generic_error(status).to_response(&new_request_id())
}

fn generic_error(status: StatusCode) -> ApiError {
    let code = code_for_status(status);
    let e = match code {
        Code::Internal => ApiError::internal(format!("framework error {status}")),
        Code::Limit if status == StatusCode::PAYLOAD_TOO_LARGE => ApiError::new(
            code,
            "the request is too large",
            serde_json::json!({"limit": "maxRequestBytes"}),
        ),
        _ => ApiError::new(
            code,
            status.canonical_reason().unwrap_or("refused").to_string(),
            serde_json::json!({}),
        ),
    };
    e.with_status(status)
}
