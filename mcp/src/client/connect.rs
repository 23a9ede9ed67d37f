//! Starting one server within its startup budget: transport, handshake in either era,
//! and discovery (`tools/list`, plus prompts and resources where declared).

use std::time::Duration;

use rmcp::model::{ProtocolVersion, ServerPeerInfo};
use tokio::sync::mpsc;

use crate::client::config::{ServerConfig, TransportConfig};
use crate::client::eras::Era;
use crate::client::handler::{HandlerOptions, ProgressRoutes, RhoClient};
use crate::client::handshake::{
    attempt, auto_mode, discovery_error, legacy_mode, modern_mode, Failure, Next,
};
use crate::client::inflight::InFlight;
use crate::client::stdio::StdioChild;
// The session types live in the leaf `session` module; their paths here stay for callers.
pub use crate::client::session::{
    sampling_allowed, ConnectError, ConnectOptions, Session, LEGACY, MODERN,
};

/// Connects to one server within `opts.startup_budget`. On any failure the child (if one
/// was started) is shut down before returning.
pub async fn connect(cfg: &ServerConfig, opts: &ConnectOptions) -> Result<Session, ConnectError> {
    connect_shared(cfg, opts, ProgressRoutes::default(), InFlight::default()).await
}

/// [`connect`] reusing a live server's progress routes and in-flight record (a session
/// re-established mid-run keeps routing to the same callers).
pub(crate) async fn connect_shared(
    cfg: &ServerConfig,
    opts: &ConnectOptions,
    progress: ProgressRoutes,
    inflight: InFlight,
) -> Result<Session, ConnectError> {
    let (list_tx, list_changed) = mpsc::unbounded_channel();
    let handler = || {
        RhoClient::new(
            HandlerOptions {
                server_id: cfg.id.clone(),
                workspace: opts.workspace.clone(),
                inflight: inflight.clone(),
                policies: opts.policies.clone(),
                sampling_allowed: sampling_allowed(cfg),
            },
            progress.clone(),
            list_tx.clone(),
        )
    };
    let remembered = opts.eras.as_ref().and_then(|e| e.recall(cfg));
    let mut auth_rounds = 0;
    let (child, started) = loop {
        let deadline = tokio::time::Instant::now() + opts.startup_budget;
        let first = match remembered {
            Some(Era::Legacy) => legacy_mode(),
            _ => auto_mode(),
        };
        let (mut child, mut started) = attempt(cfg, opts, handler(), first, deadline).await?;
        if let Err(Failure::Handshake { next, message, .. }) = &started {
            // The probe got an answer that is not `server/discover`'s (or an HTTP error): the
            // server is not modern, so `initialize` follows; or discover was answered after
            // rmcp's probe window: the server is modern but slow, so discover alone follows.
            // Either on a fresh connection, within the same budget.
            let mode = match next {
                Next::Legacy => Some(legacy_mode()),
                Next::Modern => Some(modern_mode()),
                Next::Nothing => None,
            };
            if let Some(mode) = mode {
                tracing::debug!(target: "rho::mcp", server = %cfg.id, probe = %message, next = ?next, "trying the handshake again");
                if let Some(c) = child.take() {
                    c.shutdown(opts.shutdown_grace).await;
                }
                (child, started) = attempt(cfg, opts, handler(), mode, deadline).await?;
            }
        }
        // A 401/403 challenge from an OAuth server: authorize (bounded), then start again.
        let challenge = match &started {
            Err(Failure::Handshake { challenge, .. } | Failure::Discovery { challenge, .. }) => {
                challenge.clone()
            }
            _ => None,
        };
        match (&cfg.transport, challenge) {
            (TransportConfig::StreamableHttp(http), Some(ch))
                if crate::client::http::uses_oauth(http)
                    && auth_rounds < crate::client::oauth::MAX_AUTH_ROUNDS =>
            {
                auth_rounds += 1;
                let oauth_cfg = http.oauth.clone().unwrap_or_default();
                crate::client::oauth::authorize(http, &oauth_cfg, &cfg.id, &opts.oauth, &ch)
                    .await?;
            }
            _ => break (child, started),
        }
    };
    let (service, (tools, prompts, resources, templates)) = match started {
        Ok(v) => v,
        Err(failure) => {
            if let (Some(store), Some(_)) = (&opts.eras, remembered) {
                store.forget(cfg);
            }
            // Give a dying server a moment to flush its last stderr lines.
            tokio::time::sleep(Duration::from_millis(50)).await;
            let stderr = child
                .as_ref()
                .map(StdioChild::stderr_tail)
                .unwrap_or_default();
            if let Some(child) = child {
                child.shutdown(opts.shutdown_grace).await;
            }
            return Err(match failure {
                Failure::Handshake { message, .. } => ConnectError::Handshake { message, stderr },
                Failure::Discovery { message, .. } => discovery_error(&message),
                Failure::Timeout => {
                    tracing::warn!(target: "rho::mcp", server = %cfg.id, budget_s = opts.startup_budget.as_secs(), "MCP server startup timed out");
                    ConnectError::Timeout {
                        budget: opts.startup_budget,
                    }
                }
            });
        }
    };
    let info = service
        .peer_info()
        .map(|i| (*i).clone())
        .unwrap_or_else(|| ServerPeerInfo::new(ProtocolVersion::V_2025_11_25, Default::default()));
    if let Some(store) = &opts.eras {
        let era = if info.protocol_version.as_str() >= MODERN {
            Era::Modern
        } else {
            Era::Legacy
        };
        store.remember(cfg, era);
    }
    let listen = if info.protocol_version.as_str() >= MODERN {
        tokio::time::timeout(
            opts.startup_budget,
            crate::client::refresh::open_listen(service.peer(), &info.capabilities, &cfg.id),
        )
        .await
        .ok()
        .flatten()
    } else {
        None
    };
    Ok(Session {
        id: cfg.id.clone(),
        protocol_version: info.protocol_version.to_string(),
        info,
        tools,
        prompts,
        resources,
        templates,
        service,
        progress,
        list_changed,
        list_tx,
        listen,
        inflight,
        workspace: opts.workspace.clone(),
        policies: opts.policies.clone(),
        child,
        shutdown_grace: opts.shutdown_grace,
    })
}
