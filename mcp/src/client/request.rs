//! One request to a started server: a progress token, the `_meta` log level on modern servers,
//! the era's cancellation when the caller's future is dropped, and rmcp errors mapped.

// rmcp's `LoggingLevel` is deprecated by SEP-2577; configured log levels still use it.
#![allow(deprecated)]

use std::sync::Arc;

use rmcp::model::{ClientRequest, LoggingLevel, RequestMetaObject, ServerResult};
use rmcp::service::PeerRequestOptions;
use rmcp::ServiceError;
use tokio::sync::mpsc;

use crate::client::config::LogLevel;
use crate::client::errors::CallError;
use crate::client::handler::Progress;
use crate::client::live::{mark_failed, LiveServer};

/// Cancels the request on drop unless disarmed.
struct CancelOnDrop {
    live: Arc<LiveServer>,
    id: Option<rmcp::model::RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            let peer = self.live.peer();
            let server = self.live.config.id.clone();
            tokio::spawn(async move {
                let p = rmcp::model::CancelledNotificationParam::new(
                    Some(id),
                    Some("cancelled by Rho (turn cancelled or call budget exceeded)".into()),
                );
                if let Err(e) = peer.notify_cancelled(p).await {
                    tracing::debug!(target: "rho::mcp", server = %server, error = %e, "could not send cancellation");
                }
            });
        }
    }
}

/// Sends one request (with a progress token and, on modern servers, the `_meta` log level)
/// and awaits its response; dropping the future sends the era's cancellation.
pub(crate) async fn send_once(
    live: &Arc<LiveServer>,
    request: ClientRequest,
    progress: Option<mpsc::UnboundedSender<Progress>>,
) -> Result<ServerResult, CallError> {
    let mut opts = PeerRequestOptions::no_options();
    opts.meta = request_meta(live);
    let handle = live
        .peer()
        .send_request_with_option(request, opts)
        .await
        .map_err(|e| service_error(live, e))?;
    let token = handle.progress_token.clone();
    if let Some(sink) = progress {
        live.progress.add(token.clone(), sink);
    }
    let mut guard = CancelOnDrop {
        live: Arc::clone(live),
        id: Some(handle.id.clone()),
    };
    let result = handle.await_response().await;
    guard.id = None;
    // rmcp handles each notification on its own task, so a progress notification sent just
    // before the response may be delivered just after it: keep the route open briefly.
    let routes = live.progress.clone();
    tokio::spawn(async move {
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        routes.remove(&token);
    });
    result.map_err(|e| service_error(live, e))
}

/// Maps an rmcp error; a closed transport marks the server failed.
pub(crate) fn service_error(live: &LiveServer, e: ServiceError) -> CallError {
    if let Some(challenge) = e.auth_challenge() {
        return CallError::AuthChallenge {
            server: live.config.id.clone(),
            challenge: challenge.to_owned(),
        };
    }
    match e {
        ServiceError::McpError(err) => CallError::Rpc {
            server: live.config.id.clone(),
            message: err.message.to_string(),
        },
        ServiceError::TransportClosed | ServiceError::TransportSend(_) => {
            let reason = "its session ended (the server exited or the connection closed)";
            mark_failed(live, reason.to_owned());
            CallError::Unavailable {
                server: live.config.id.clone(),
                reason: reason.to_owned(),
            }
        }
        other => CallError::Rpc {
            server: live.config.id.clone(),
            message: other.to_string(),
        },
    }
}

/// Per-request `_meta`: on modern servers the configured log level rides on each request.
pub(crate) fn request_meta(live: &LiveServer) -> Option<RequestMetaObject> {
    let level = live.config.log_level?;
    if !live.is_modern() {
        return None;
    }
    let mut meta = RequestMetaObject::default();
    meta.set_log_level(wire_level(level));
    Some(meta)
}

/// Config level -> rmcp level.
pub fn wire_level(level: LogLevel) -> LoggingLevel {
    match level {
        LogLevel::Debug => LoggingLevel::Debug,
        LogLevel::Info => LoggingLevel::Info,
        LogLevel::Notice => LoggingLevel::Notice,
        LogLevel::Warning => LoggingLevel::Warning,
        LogLevel::Error => LoggingLevel::Error,
        LogLevel::Critical => LoggingLevel::Critical,
        LogLevel::Alert => LoggingLevel::Alert,
        LogLevel::Emergency => LoggingLevel::Emergency,
    }
}
