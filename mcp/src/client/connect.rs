//! Starting one server within its startup budget: transport, handshake in either era,
//! and discovery (`tools/list`, plus prompts and resources where declared).

use std::path::PathBuf;
use std::time::Duration;

use rmcp::model::{Prompt, ProtocolVersion, Resource, ResourceTemplate, ServerPeerInfo, Tool};
use rmcp::service::{RoleClient, RunningService};
use tokio::sync::mpsc;

use crate::client::config::{ServerConfig, TransportConfig};
use crate::client::env::MissingEnv;
use crate::client::eras::Era;
use crate::client::handler::{HandlerOptions, ListChanged, ProgressRoutes, RhoClient};
use crate::client::handshake::{attempt, auto_mode, discovery_error, legacy_mode, Failure};
use crate::client::inflight::InFlight;
use crate::client::stdio::{SpawnError, StdioChild};

/// The modern, stateless protocol revision.
pub const MODERN: &str = "2026-07-28";
/// The legacy revision Rho falls back to.
pub const LEGACY: &str = "2025-11-25";

/// Budgets and session facts that shape a connection.
#[derive(Debug, Clone)]
pub struct ConnectOptions {
    /// Connect + handshake + discovery (seed: two minutes).
    pub startup_budget: Duration,
    /// Each wait of the stdio shutdown ladder (3 s).
    pub shutdown_grace: Duration,
    /// The session workspace, advertised as the one root.
    pub workspace: Option<PathBuf>,
    /// Responder, model and ledger of this run (absent ones declare nothing).
    pub policies: crate::client::policy::Policies,
    /// Where detected eras are remembered (none: always probe).
    pub eras: Option<crate::client::eras::EraStore>,
    /// Credential store and how this run may authorize.
    pub oauth: crate::client::oauth::OAuthOptions,
}

impl Default for ConnectOptions {
    fn default() -> Self {
        Self {
            startup_budget: Duration::from_secs(120),
            shutdown_grace: Duration::from_secs(3),
            workspace: std::env::current_dir().ok(),
            policies: crate::client::policy::Policies::default(),
            eras: None,
            oauth: crate::client::oauth::OAuthOptions::default(),
        }
    }
}

/// Why a server did not start; each disables only that server.
#[derive(Debug, thiserror::Error)]
pub enum ConnectError {
    /// An `env_from_env`/`headers_from_env` variable is unset.
    #[error(transparent)]
    Env(#[from] MissingEnv),
    /// The executable could not be started.
    #[error(transparent)]
    Spawn(#[from] SpawnError),
    /// The handshake failed (either era).
    #[error("handshake failed: {message}{}", stderr_suffix(.stderr))]
    Handshake {
        /// rmcp's description.
        message: String,
        /// The server's last stderr lines (secrets redacted).
        stderr: String,
    },
    /// A discovery request failed.
    #[error("{request} failed: {message}")]
    Discovery {
        /// The request (`tools/list`, ...).
        request: &'static str,
        /// rmcp's description.
        message: String,
    },
    /// The startup budget ran out.
    #[error("startup did not finish within {}s (connect, handshake and discovery)", .budget.as_secs())]
    Timeout {
        /// The budget.
        budget: Duration,
    },
    /// The HTTP entry cannot be used (URL, headers).
    #[error(transparent)]
    Http(#[from] crate::client::http::HttpSetupError),
    /// OAuth did not produce a usable token.
    #[error(transparent)]
    OAuth(#[from] crate::client::oauth::OAuthError),
}

/// Gate one's config half: `sampling = "ask"` in the selected config file (never a plugin).
pub fn sampling_allowed(cfg: &ServerConfig) -> bool {
    cfg.sampling == crate::client::config::SamplingPolicy::Ask
        && matches!(cfg.source, crate::client::config::Source::Config)
}

fn stderr_suffix(stderr: &str) -> String {
    if stderr.is_empty() {
        String::new()
    } else {
        format!(" (server stderr: {stderr})")
    }
}

/// A live, discovered server.
pub struct Session {
    /// Server identity.
    pub id: String,
    /// The negotiated protocol revision.
    pub protocol_version: String,
    /// What the server told us about itself.
    pub info: ServerPeerInfo,
    /// Tools from `tools/list`.
    pub tools: Vec<Tool>,
    /// Prompts (when the server declares prompts).
    pub prompts: Vec<Prompt>,
    /// Resources (when the server declares resources).
    pub resources: Vec<Resource>,
    /// Resource templates (when the server declares resources).
    pub templates: Vec<ResourceTemplate>,
    /// The rmcp service.
    pub service: RunningService<RoleClient, RhoClient>,
    /// Progress routes shared with the handler.
    pub progress: ProgressRoutes,
    /// List-change signals from the server.
    pub list_changed: mpsc::UnboundedReceiver<ListChanged>,
    /// Sender side of `list_changed` (modern servers feed it from `subscriptions/listen`).
    pub list_tx: mpsc::UnboundedSender<ListChanged>,
    /// Modern era: the acknowledged `subscriptions/listen` stream, opened during startup.
    pub listen: Option<rmcp::service::Subscription>,
    /// In-flight calls, shared with the handler.
    pub inflight: InFlight,
    /// The workspace advertised as the root.
    pub workspace: Option<PathBuf>,
    /// Responder, model and ledger of this run.
    pub policies: crate::client::policy::Policies,
    child: Option<StdioChild>,
    shutdown_grace: Duration,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("id", &self.id)
            .field("protocol_version", &self.protocol_version)
            .finish_non_exhaustive()
    }
}

impl Session {
    /// True for the stateless 2026-07-28 era.
    pub fn is_modern(&self) -> bool {
        self.protocol_version.as_str() >= MODERN
    }

    /// The process group of a stdio server.
    pub fn pgid(&self) -> Option<i32> {
        self.child.as_ref().and_then(StdioChild::pgid)
    }

    /// Whether a stdio server's process has exited.
    pub fn child_exited(&mut self) -> bool {
        self.child
            .as_mut()
            .is_some_and(|c| c.try_exited().is_some())
    }

    /// Bounded close: ends the session (closing stdin) and stops the process group.
    pub async fn close(mut self) {
        let grace = self.shutdown_grace;
        let _ = tokio::time::timeout(grace, self.service.close()).await;
        drop(self.service);
        if let Some(child) = self.child.take() {
            child.shutdown(grace).await;
        }
    }
}

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
        if let Err(Failure::Handshake {
            fallback: true,
            message,
            ..
        }) = &started
        {
            // The probe got an answer that is not `server/discover`'s (or an HTTP error): the
            // server is not modern. Fall back to `initialize` on a fresh connection, within
            // the same budget.
            tracing::debug!(target: "rho::mcp", server = %cfg.id, probe = %message, "falling back to the legacy handshake");
            if let Some(c) = child.take() {
                c.shutdown(opts.shutdown_grace).await;
            }
            (child, started) = attempt(cfg, opts, handler(), legacy_mode(), deadline).await?;
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
