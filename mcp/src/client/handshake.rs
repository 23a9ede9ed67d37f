//! One connection attempt: the transport (a child process, plain HTTP or OAuth HTTP), the
//! two-era handshake and discovery within the start budget, classified failures.

use rmcp::model::{Prompt, ProtocolVersion, Resource, ResourceTemplate, Tool};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt, RoleClient, RunningService};

use crate::client::config::{ServerConfig, TransportConfig};
use crate::client::env::child_env_from_process;
use crate::client::handler::RhoClient;
use crate::client::session::{ConnectError, ConnectOptions, MODERN};
use crate::client::stdio::{spawn, SpawnError, StdioChild};

/// Legacy era: `logging/setLevel` once after the handshake, only to a server declaring
/// logging. (Modern servers get the level per request in `_meta`; see `request::request_meta`.)
pub(crate) async fn apply_log_level(
    cfg: &ServerConfig,
    service: &RunningService<RoleClient, RhoClient>,
) {
    let Some(level) = cfg.log_level else {
        return;
    };
    let Some(info) = service.peer_info() else {
        return;
    };
    if info.protocol_version.as_str() >= MODERN || info.capabilities.logging.is_none() {
        return;
    }
    #[allow(deprecated)]
    let params = rmcp::model::SetLevelRequestParams::new(crate::client::request::wire_level(level));
    #[allow(deprecated)]
    if let Err(e) = service.set_level(params).await {
        tracing::warn!(target: "rho::mcp", server = %cfg.id, error = %e, "logging/setLevel failed");
    }
}

/// What a failed probe says to try next, on a fresh connection within the same budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Next {
    Nothing,
    /// The server answered `server/discover` with something else: it is not modern.
    Legacy,
    /// The server answered `server/discover` after rmcp's fixed probe window had closed and
    /// `initialize` was already sent (a slow start, e.g. a busy machine): it is modern.
    Modern,
}

pub(crate) enum Failure {
    /// `next`: what the failure says to try next; `challenge`: the `WWW-Authenticate` of a
    /// 401/403.
    Handshake {
        message: String,
        next: Next,
        challenge: Option<String>,
    },
    Discovery {
        message: String,
        challenge: Option<String>,
    },
    Timeout,
}

pub(crate) fn auto_mode() -> ClientLifecycleMode {
    ClientLifecycleMode::Auto {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        legacy_version: Some(ProtocolVersion::V_2025_11_25),
    }
}

pub(crate) fn legacy_mode() -> ClientLifecycleMode {
    ClientLifecycleMode::Initialize
}

/// `server/discover` only, bounded by the caller's budget rather than rmcp's probe window.
pub(crate) fn modern_mode() -> ClientLifecycleMode {
    ClientLifecycleMode::Discover {
        preferred_versions: vec![ProtocolVersion::V_2026_07_28],
    }
}

pub(crate) type Started = Result<(RunningService<RoleClient, RhoClient>, Found), Failure>;

/// One handshake attempt on a fresh transport (a new child for stdio).
pub(crate) async fn attempt(
    cfg: &ServerConfig,
    opts: &ConnectOptions,
    handler: RhoClient,
    mode: ClientLifecycleMode,
    deadline: tokio::time::Instant,
) -> Result<(Option<StdioChild>, Started), ConnectError> {
    let is_auto = matches!(mode, ClientLifecycleMode::Auto { .. });
    Ok(match &cfg.transport {
        TransportConfig::Stdio(stdio) => {
            let env = child_env_from_process(stdio)?;
            if let Some(dir) = &cfg.plugin_data_dir {
                std::fs::create_dir_all(dir).map_err(|source| SpawnError {
                    command: format!("(creating plugin data folder {})", dir.display()),
                    source,
                })?;
            }
            let (child, stdout, stdin) = spawn(&cfg.id, stdio, &env)?;
            let started = start_within(
                cfg,
                handler,
                (stdout, stdin),
                mode,
                deadline,
                is_auto,
                false,
            )
            .await;
            (Some(child), started)
        }
        TransportConfig::StreamableHttp(http) if crate::client::http::uses_oauth(http) => {
            use crate::client::oauth::OAuthTransport;
            let started = match crate::client::oauth::transport(http, &cfg.id, &opts.oauth).await? {
                OAuthTransport::Bearer(t) => {
                    start_within(cfg, handler, t, mode, deadline, is_auto, true).await
                }
                OAuthTransport::Dpop(t) => {
                    start_within(cfg, handler, t, mode, deadline, is_auto, true).await
                }
            };
            (None, started)
        }
        TransportConfig::StreamableHttp(http) => {
            let transport = crate::client::http::transport(http)?;
            let _ = opts;
            (
                None,
                start_within(cfg, handler, transport, mode, deadline, is_auto, true).await,
            )
        }
    })
}

/// Handshake (probing the modern era, falling back to legacy) and discovery, all within
/// the startup budget.
pub(crate) async fn start_within<T, E, A>(
    cfg: &ServerConfig,
    handler: RhoClient,
    transport: T,
    lifecycle: ClientLifecycleMode,
    deadline: tokio::time::Instant,
    probing: bool,
    http: bool,
) -> Started
where
    T: rmcp::transport::IntoTransport<RoleClient, E, A> + Send + 'static,
    E: std::error::Error + Send + Sync + 'static,
{
    let work = async {
        let service = handler
            .serve_with_lifecycle(transport, lifecycle)
            .await
            .map_err(|e| {
                let challenge = e.auth_challenge().map(str::to_owned);
                let next = if !probing || challenge.is_some() {
                    Next::Nothing
                } else if late_discover(&e) {
                    Next::Modern
                } else if not_modern(&e, http) {
                    Next::Legacy
                } else {
                    Next::Nothing
                };
                Failure::Handshake {
                    next,
                    message: e.to_string(),
                    challenge,
                }
            })?;
        let found = discover(&service)
            .await
            .map_err(|(message, challenge)| Failure::Discovery { message, challenge })?;
        apply_log_level(cfg, &service).await;
        Ok((service, found))
    };
    tokio::time::timeout_at(deadline, work)
        .await
        .unwrap_or(Err(Failure::Timeout))
}

/// Whether a probe failed because `server/discover` was answered late: rmcp's automatic mode
/// gives the probe a fixed window, then sends `initialize` on the same connection, and the
/// first reply it reads is discover's. Only a modern server answers discover with a result.
fn late_discover(e: &rmcp::service::ClientInitializeError) -> bool {
    matches!(
        e,
        rmcp::service::ClientInitializeError::ConflictInitResponseId(..)
    )
}

/// Whether a failed probe shows a server that is simply not modern: it answered
/// `server/discover` with something else, or (HTTP) refused the request outright.
pub(crate) fn not_modern(e: &rmcp::service::ClientInitializeError, http: bool) -> bool {
    use rmcp::service::ClientInitializeError as E;
    match e {
        E::ExpectedInitResult(_) | E::ExpectedInitResponse(_) => true,
        E::TransportError { .. } => http,
        _ => false,
    }
}

pub(crate) type Found = (Vec<Tool>, Vec<Prompt>, Vec<Resource>, Vec<ResourceTemplate>);

/// `tools/list`, then prompts/resources/templates where the server declares them.
/// Errors are prefixed `<request>: ` so they can be classified.
pub(crate) async fn discover(
    service: &RunningService<RoleClient, RhoClient>,
) -> Result<Found, (String, Option<String>)> {
    let err = |what: &str, e: rmcp::ServiceError| {
        (
            format!("{what}: {e}"),
            e.auth_challenge().map(str::to_owned),
        )
    };
    let caps = service
        .peer_info()
        .map(|i| i.capabilities.clone())
        .unwrap_or_default();
    let tools = if caps.tools.is_some() {
        service
            .list_all_tools()
            .await
            .map_err(|e| err("tools/list", e))?
    } else {
        Vec::new()
    };
    let (mut prompts, mut resources, mut templates) = (Vec::new(), Vec::new(), Vec::new());
    if caps.prompts.is_some() {
        prompts = service
            .list_all_prompts()
            .await
            .map_err(|e| err("prompts/list", e))?;
    }
    if caps.resources.is_some() {
        resources = service
            .list_all_resources()
            .await
            .map_err(|e| err("resources/list", e))?;
        templates = service
            .list_all_resource_templates()
            .await
            .map_err(|e| err("resources/templates/list", e))?;
    }
    Ok((tools, prompts, resources, templates))
}

pub(crate) fn discovery_error(message: &str) -> ConnectError {
    for request in [
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
    ] {
        if let Some(rest) = message
            .strip_prefix(request)
            .and_then(|r| r.strip_prefix(": "))
        {
            return ConnectError::Discovery {
                request,
                message: rest.to_owned(),
            };
        }
    }
    ConnectError::Discovery {
        request: "discovery",
        message: message.to_owned(),
    }
}
