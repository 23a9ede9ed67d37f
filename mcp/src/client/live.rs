//! A started server as the rest of the client sees it (a leaf of its module graph): its live
//! state, its completion cache, and marking it failed.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{Prompt, Resource, ResourceTemplate, Tool};
use rmcp::service::{Peer, RoleClient};

use crate::client::config::ServerConfig;
use crate::client::handler::{ListChanged, ProgressRoutes};
use crate::client::session::{Session, MODERN};

/// Live, mutable facts about one started server.
#[derive(Debug, Clone, Default)]
pub struct LiveState {
    /// The current tool definitions (revised on list changes).
    pub tools: Vec<Tool>,
    /// Raw names of registered tools the server withdrew.
    pub withdrawn: Vec<String>,
    /// Raw names of tools added after start (need a restart).
    pub added: Vec<String>,
    /// Prompts (refreshed on list changes).
    pub prompts: Vec<Prompt>,
    /// Resources (refreshed on list changes).
    pub resources: Vec<Resource>,
    /// Resource templates.
    pub templates: Vec<ResourceTemplate>,
    /// Set when the server died or its session ended.
    pub failed: Option<String>,
    /// Last successful ping (RFC 3339), legacy Streamable HTTP only.
    pub last_ping: Option<String>,
    /// The last ping's failure, cleared by a later success.
    pub ping_error: Option<String>,
}

/// A started server.
#[derive(Debug)]
pub struct LiveServer {
    /// Its config.
    pub config: ServerConfig,
    /// Negotiated protocol revision.
    pub protocol_version: String,
    /// Server instructions, if any.
    pub instructions: Option<String>,
    /// The peer for requests (replaced when a session is re-established after a scope step-up).
    pub(crate) peer: std::sync::RwLock<Peer<RoleClient>>,
    /// Progress routes.
    pub progress: ProgressRoutes,
    /// In-flight calls (shared with the handler).
    pub inflight: crate::client::inflight::InFlight,
    /// The workspace advertised as the one root.
    pub workspace: Option<std::path::PathBuf>,
    /// Responder, model and ledger of this run.
    pub policies: crate::client::policy::Policies,
    /// Whether sampling is declared to this server.
    pub sampling_declared: bool,
    /// What the server declared.
    pub capabilities: rmcp::model::ServerCapabilities,
    /// Completion cache and single-flight gate.
    pub completer: Completer,
    /// Mutable state.
    pub state: Mutex<LiveState>,
    /// Set once shutdown begins (late list refreshes are then expected to fail quietly).
    pub closing: std::sync::atomic::AtomicBool,
    /// Bumped after each successful re-listing (shared by the runtime's servers), so a panel
    /// re-reads tools, prompts and resources when they change instead of polling.
    pub lists_changed: std::sync::Arc<tokio::sync::watch::Sender<u64>>,
    /// Bound on re-listing after a list change (the start budget); past it the session is
    /// closed, bounded, rather than left to Drop.
    pub refresh_budget: Duration,
    pub(crate) session: tokio::sync::Mutex<Option<Session>>,
}

impl LiveServer {
    /// The current peer for requests.
    pub fn peer(&self) -> Peer<RoleClient> {
        self.peer
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// A snapshot of the live state. A server whose session ended (a stdio child that died)
    /// is marked failed here and is never restarted.
    pub fn snapshot(&self) -> LiveState {
        if self.peer().is_transport_closed()
            && !self.closing.load(std::sync::atomic::Ordering::SeqCst)
        {
            mark_failed(
                self,
                "its session ended (the server exited or the connection closed)".to_owned(),
            );
        }
        self.state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// True for the stateless 2026-07-28 era.
    pub fn is_modern(&self) -> bool {
        self.protocol_version.as_str() >= MODERN
    }

    /// The process group of a stdio server (for tests and diagnostics).
    pub async fn pgid(&self) -> Option<i32> {
        self.session.lock().await.as_ref().and_then(Session::pgid)
    }
}

/// A completion request's cache key: prompt, argument, typed value, the other arguments.
pub(crate) type CompletionKey = (String, String, String, Vec<(String, String)>);

/// Per-server completion state.
#[derive(Debug, Default)]
pub struct Completer {
    pub(crate) cache: Mutex<HashMap<CompletionKey, Vec<String>>>,
    pub(crate) gate: tokio::sync::Mutex<()>,
    /// Requests actually sent (for tests and diagnostics).
    pub(crate) sent: std::sync::atomic::AtomicUsize,
}

impl Completer {
    /// Requests sent so far.
    pub fn requests_sent(&self) -> usize {
        self.sent.load(std::sync::atomic::Ordering::Relaxed)
    }
}

/// Marks a server failed (it died or its session ended); its tools then fail with the reason.
pub fn mark_failed(live: &LiveServer, reason: String) {
    live.state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .failed
        .get_or_insert(reason);
}

/// Marks a server failed and closes its session, bounded by the session's shutdown grace
/// (stdin closed, then the process group terminated), instead of leaving it to Drop.
pub(crate) async fn fail_and_close(live: &LiveServer, reason: String) {
    tracing::warn!(target: "rho::mcp", server = %live.config.id, reason = %reason, "closing the MCP session");
    mark_failed(live, reason);
    let session = live.session.lock().await.take();
    if let Some(session) = session {
        session.close().await;
    }
}

/// Re-export for the refresh task.
pub(crate) type ListRx = tokio::sync::mpsc::UnboundedReceiver<ListChanged>;
