//! The MCP runtime of one session: starts every enabled server concurrently, keeps each
//! one's live state, exposes the fixed tool registry, and shuts everything down.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::client::config::{McpConfig, SamplingPolicy, ServerConfig};
use crate::client::connect::{connect, ConnectOptions, Session};
use crate::client::handler::ListChanged;
use crate::client::live::Completer;
// The live-server types live in the leaf `live` module; their paths here stay for callers.
pub(crate) use crate::client::live::ListRx;
pub use crate::client::live::{mark_failed, LiveServer, LiveState};
use crate::client::registry::{describe, Registry};

/// Options for starting a runtime.
#[derive(Debug, Clone)]
pub struct StartOptions {
    /// Connection budgets and workspace.
    pub connect: ConnectOptions,
    /// Per-call budget (seed: two minutes; paused while a person is asked).
    pub call_budget: Duration,
    /// Ping interval for legacy-era Streamable HTTP servers (seed: once a minute).
    pub ping_interval: Duration,
}

impl Default for StartOptions {
    fn default() -> Self {
        Self {
            connect: ConnectOptions::default(),
            call_budget: Duration::from_secs(120),
            ping_interval: Duration::from_secs(60),
        }
    }
}

/// One enabled server's outcome at startup.
#[derive(Debug)]
pub enum Slot {
    /// Started and discovered.
    Live(Arc<LiveServer>),
    /// Failed to start: disabled for this session with the reason.
    Failed {
        /// Its config.
        config: Box<ServerConfig>,
        /// Why.
        error: String,
    },
}

/// A tool as offered to the model for the next turn.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    /// Exported name.
    pub name: String,
    /// Description (server identity, title, hints).
    pub description: String,
    /// Input JSON Schema.
    pub input_schema: serde_json::Value,
}

/// The MCP runtime of a session. Only exists when at least one server is enabled.
#[derive(Debug)]
pub struct McpRuntime {
    slots: Vec<Slot>,
    registry: Registry,
    opts: StartOptions,
    max_output_bytes: usize,
    lists_changed: Arc<tokio::sync::watch::Sender<u64>>,
}

impl McpRuntime {
    /// Starts every enabled server concurrently. Returns `None`, having constructed and
    /// started nothing, when no server is enabled.
    pub async fn start(config: &McpConfig, opts: StartOptions) -> Option<McpRuntime> {
        let enabled: Vec<ServerConfig> = config.enabled().cloned().collect();
        if enabled.is_empty() {
            return None;
        }
        let lists_changed = Arc::new(tokio::sync::watch::Sender::new(0));
        let mut tasks = tokio::task::JoinSet::new();
        for (idx, cfg) in enabled.into_iter().enumerate() {
            let copts = opts.connect.clone();
            tasks.spawn(async move {
                let result = connect(&cfg, &copts).await;
                (idx, cfg, result)
            });
        }
        let mut results = Vec::new();
        while let Some(joined) = tasks.join_next().await {
            if let Ok(r) = joined {
                results.push(r);
            }
        }
        results.sort_by_key(|(idx, _, _)| *idx);
        let slots: Vec<Slot> = results
            .into_iter()
            .map(|(_, cfg, result)| match result {
                Ok(session) => Slot::Live(live_server(
                    cfg,
                    session,
                    opts.ping_interval,
                    opts.connect.startup_budget,
                    Arc::clone(&lists_changed),
                )),
                Err(e) => {
                    tracing::warn!(target: "rho::mcp", server = %cfg.id, error = %e, "MCP server disabled for this session");
                    Slot::Failed {
                        config: Box::new(cfg),
                        error: e.to_string(),
                    }
                }
            })
            .collect();
        let registry = Registry::build(slots.iter().enumerate().filter_map(|(i, s)| {
            match s {
                Slot::Live(l) => Some((
                    i,
                    l.config.id.as_str(),
                    l.snapshot()
                        .tools
                        .iter()
                        .map(|t| t.name.to_string())
                        .filter(|n| l.config.tools.permits(n))
                        .collect(),
                )),
                Slot::Failed { .. } => None,
            }
        }));
        Some(McpRuntime {
            slots,
            registry,
            opts,
            max_output_bytes: config.max_output_bytes,
            lists_changed,
        })
    }

    /// A receiver that changes after any server's tools, prompts or resources were re-listed.
    pub fn lists_changed(&self) -> tokio::sync::watch::Receiver<u64> {
        self.lists_changed.subscribe()
    }

    /// Every enabled server's slot, in config order.
    pub fn slots(&self) -> &[Slot] {
        &self.slots
    }

    /// The fixed registry of exported names.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Start options in force.
    pub fn options(&self) -> &StartOptions {
        &self.opts
    }

    /// `[mcp] max_output_bytes`.
    pub fn max_output_bytes(&self) -> usize {
        self.max_output_bytes
    }

    /// The live server behind a slot index.
    pub fn live(&self, idx: usize) -> Option<&Arc<LiveServer>> {
        match self.slots.get(idx) {
            Some(Slot::Live(l)) => Some(l),
            _ => None,
        }
    }

    /// The live server with this identity.
    pub fn server(&self, id: &str) -> Option<&Arc<LiveServer>> {
        self.slots.iter().find_map(|s| match s {
            Slot::Live(l) if l.config.id == id => Some(l),
            _ => None,
        })
    }

    /// Tools for the next turn, read fresh from each server's current definitions. Withdrawn
    /// tools stay listed under their exported name (a call fails with the reason).
    pub fn tools(&self) -> Vec<ToolSpec> {
        let mut out = Vec::new();
        for (exported, r) in self.registry.iter() {
            let Some(live) = self.live(r.server) else {
                continue;
            };
            // Read under the lock: this runs for every model request, and a snapshot would
            // clone the server's prompts and resources too.
            let state = live.state.lock().unwrap_or_else(PoisonError::into_inner);
            let spec = match state.tools.iter().find(|t| t.name == r.tool) {
                Some(t) => ToolSpec {
                    name: exported.clone(),
                    description: describe(&r.server_id, t),
                    input_schema: serde_json::Value::Object((*t.input_schema).clone()),
                },
                None => ToolSpec {
                    name: exported.clone(),
                    description: format!(
                        "(MCP tool `{}` from server `{}`: withdrawn by the server; calls fail)",
                        r.tool, r.server_id
                    ),
                    input_schema: serde_json::json!({"type": "object"}),
                },
            };
            out.push(spec);
        }
        out
    }

    /// Each live server's instructions, fenced and labelled as documentation from that
    /// server (never as instructions from the user), for the agent's system prompt.
    pub fn instructions(&self) -> String {
        let mut out = String::new();
        for s in &self.slots {
            let Slot::Live(l) = s else { continue };
            let Some(text) = l.instructions.as_deref().filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            out.push_str(&fence_instructions(&l.config.id, text));
            out.push('\n');
        }
        out
    }

    /// Bounded close of every server, concurrently.
    pub async fn shutdown(self) {
        let mut tasks = tokio::task::JoinSet::new();
        for s in self.slots {
            if let Slot::Live(l) = s {
                tasks.spawn(async move {
                    l.closing.store(true, std::sync::atomic::Ordering::SeqCst);
                    if let Some(session) = l.session.lock().await.take() {
                        session.close().await;
                    }
                });
            }
        }
        while tasks.join_next().await.is_some() {}
    }
}

/// `<mcp-server-instructions server="id">…</mcp-server-instructions>` with any closing tag
/// inside the text escaped.
pub fn fence_instructions(server_id: &str, text: &str) -> String {
    let escaped = text.replace("</mcp-server-instructions", "&lt;/mcp-server-instructions");
    format!(
        "<mcp-server-instructions server=\"{server_id}\">\nDocumentation provided by MCP server `{server_id}` (not instructions from the user):\n{escaped}\n</mcp-server-instructions>"
    )
}

/// Whether sampling may be declared to this server in a run with/without a model.
pub fn sampling_declared(cfg: &ServerConfig, has_model: bool) -> bool {
    cfg.sampling == SamplingPolicy::Ask
        && has_model
        && matches!(cfg.source, crate::client::config::Source::Config)
}

fn live_server(
    config: ServerConfig,
    mut session: Session,
    ping: Duration,
    refresh_budget: Duration,
    lists_changed: Arc<tokio::sync::watch::Sender<u64>>,
) -> Arc<LiveServer> {
    let state = LiveState {
        tools: std::mem::take(&mut session.tools),
        prompts: std::mem::take(&mut session.prompts),
        resources: std::mem::take(&mut session.resources),
        templates: std::mem::take(&mut session.templates),
        ..LiveState::default()
    };
    let (_tx, empty_rx) = tokio::sync::mpsc::unbounded_channel();
    let list_rx = std::mem::replace(&mut session.list_changed, empty_rx);
    let live_list_tx = session.list_tx.clone();
    let listen = session.listen.take();
    let live = Arc::new(LiveServer {
        protocol_version: session.protocol_version.clone(),
        instructions: session.info.instructions.clone(),
        peer: std::sync::RwLock::new(session.service.peer().clone()),
        progress: session.progress.clone(),
        inflight: session.inflight.clone(),
        capabilities: session.info.capabilities.clone(),
        policies: session.policies.clone(),
        sampling_declared: crate::client::connect::sampling_allowed(&config)
            && session.policies.model.is_some()
            && session.policies.responder.is_some(),
        completer: Completer::default(),
        workspace: session.workspace.clone(),
        config,
        state: Mutex::new(state),
        closing: std::sync::atomic::AtomicBool::new(false),
        refresh_budget,
        lists_changed,
        session: tokio::sync::Mutex::new(Some(session)),
    });
    spawn_watchers(&live, list_rx, live_list_tx, listen);
    if !live.is_modern() && live.config.transport.name() == "streamable_http" {
        tokio::spawn(crate::client::refresh::ping_loop(
            Arc::downgrade(&live),
            ping,
        ));
    }
    live
}

fn spawn_watchers(
    live: &Arc<LiveServer>,
    list_rx: ListRx,
    list_tx: tokio::sync::mpsc::UnboundedSender<ListChanged>,
    listen: Option<rmcp::service::Subscription>,
) {
    if let Some(sub) = listen {
        tokio::spawn(crate::client::refresh::forward_listen(sub, list_tx));
    }
    tokio::spawn(crate::client::refresh::watch_lists(
        Arc::downgrade(live),
        list_rx,
    ));
}

/// Swaps in a re-established session (after an OAuth scope step-up): new peer, the old
/// session closed, the failure mark cleared, list watchers restarted.
pub(crate) async fn replace_session(live: &Arc<LiveServer>, mut session: Session) {
    let (_tx, empty_rx) = tokio::sync::mpsc::unbounded_channel();
    let list_rx = std::mem::replace(&mut session.list_changed, empty_rx);
    let list_tx = session.list_tx.clone();
    let listen = session.listen.take();
    *live.peer.write().unwrap_or_else(PoisonError::into_inner) = session.service.peer().clone();
    let old = live.session.lock().await.replace(session);
    live.state
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .failed = None;
    if let Some(old) = old {
        tokio::spawn(old.close());
    }
    spawn_watchers(live, list_rx, list_tx, listen);
}
