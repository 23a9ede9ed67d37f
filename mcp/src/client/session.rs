//! The connection-level types of the MCP client (a leaf of its module graph): protocol
//! revisions, connection options, why a start failed, and one live, discovered session.

use std::path::PathBuf;
use std::time::Duration;

use rmcp::model::{Prompt, Resource, ResourceTemplate, ServerPeerInfo, Tool};
use rmcp::service::{RoleClient, RunningService};
use tokio::sync::mpsc;

use crate::client::config::ServerConfig;
use crate::client::env::MissingEnv;
use crate::client::handler::{ListChanged, ProgressRoutes, RhoClient};
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
    pub(crate) child: Option<StdioChild>,
    pub(crate) shutdown_grace: Duration,
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
