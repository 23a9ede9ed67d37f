//! `AppState`: what every request handler shares (limits, credentials' stores, event bus, owner selection, shutdown gate).
//!
//! The operation table is not part of it: [`crate::serve`] takes it beside the state, so the
//! table (whose handlers receive this state) and the state never name each other.

use crate::activity::{ActivitySink, NoActivity};
use crate::grants::{GrantStore, NoGrants};
use crate::pairing::{MemoryPairing, PairingStore};
use crate::secret::SecretDigest;
use rho_actors::events::EventBus;
use rho_actors::limits::Limits;
use rho_actors::owners::Selection;
use serde_json::Value;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Facts for the status page at `GET /` (service, projects, owners, limits), as JSON.
pub type StatusFacts = Arc<dyn Fn() -> Value + Send + Sync>;
/// Whether project `id` lies in the folder a paired tab is scoped to (used to filter events).
pub type FolderScope = Arc<dyn Fn(&Path, Uuid) -> bool + Send + Sync>;

/// Everything needed to build an [`AppState`]; [`AppConfig::new`] fills the optional parts.
pub struct AppConfig {
    /// The service version shown on the status page.
    pub version: String,
    /// The operator token of `connection.json` (kept only as a digest).
    pub operator_token: String,
    /// The service's own OS uid: a request with no credential is `local` only from this uid.
    pub service_uid: Option<u32>,
    pub limits: Limits,
    pub events: EventBus,
    pub grants: Arc<dyn GrantStore>,
    /// Where calls by Agent principals are recorded.
    pub activity: Arc<dyn ActivitySink>,
    pub pairing: Arc<dyn PairingStore>,
    pub status: StatusFacts,
    pub folder_scope: FolderScope,
    /// Interval of SSE keep-alive comments.
    pub keep_alive: Duration,
    /// The service's `--plugins` selection: the owner gate of reads (writes are gated by the
    /// project after their identity lookup).
    pub selection: Arc<Selection>,
}

impl AppConfig {
    /// No grants, in-memory pairing, empty status facts, folder-scoped tabs see no project
    /// events, keep-alive every 15 s.
    pub fn new(
        version: impl Into<String>,
        operator_token: impl Into<String>,
        service_uid: Option<u32>,
        limits: Limits,
        events: EventBus,
    ) -> Self {
        AppConfig {
            version: version.into(),
            operator_token: operator_token.into(),
            service_uid,
            limits,
            events,
            grants: Arc::new(NoGrants),
            activity: Arc::new(NoActivity),
            pairing: Arc::new(MemoryPairing::new()),
            status: Arc::new(|| Value::Object(Default::default())),
            folder_scope: Arc::new(|_, _| false),
            keep_alive: Duration::from_secs(15),
            selection: Arc::default(),
        }
    }
}

/// Shared by every worker; cheap to clone. Keep a clone to call [`AppState::begin_shutdown`].
#[derive(Clone)]
pub struct AppState {
    pub version: Arc<str>,
    pub service_uid: Option<u32>,
    pub limits: Arc<Limits>,
    pub events: EventBus,
    pub grants: Arc<dyn GrantStore>,
    pub activity: Arc<dyn ActivitySink>,
    pub pairing: Arc<dyn PairingStore>,
    pub status: StatusFacts,
    pub folder_scope: FolderScope,
    pub keep_alive: Duration,
    pub selection: Arc<Selection>,
    operator: SecretDigest,
    shutdown: Arc<AtomicBool>,
    /// The port this state is served on (set by `serve`).
    pub(crate) port: u16,
}

impl AppState {
    pub fn new(c: AppConfig) -> Self {
        AppState {
            version: c.version.into(),
            service_uid: c.service_uid,
            limits: Arc::new(c.limits),
            events: c.events,
            grants: c.grants,
            activity: c.activity,
            pairing: c.pairing,
            status: c.status,
            folder_scope: c.folder_scope,
            keep_alive: c.keep_alive,
            selection: c.selection,
            operator: SecretDigest::of(&c.operator_token),
            shutdown: Arc::new(AtomicBool::new(false)),
            port: 0,
        }
    }

    /// Refuses every new request and observation with `unavailable`, and ends open event
    /// streams. Call it first on SIGINT/SIGTERM, then stop the server.
    pub fn begin_shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.events.close();
        tracing::info!("HTTP edge: refusing new requests; event streams closed");
    }

    pub fn is_shutting_down(&self) -> bool {
        self.shutdown.load(Ordering::SeqCst)
    }

    /// Whether `token` is the operator token (constant time).
    pub fn is_operator_token(&self, token: &str) -> bool {
        self.operator.matches(token)
    }

    /// The port the edge listens on (0 before `serve`).
    pub fn port(&self) -> u16 {
        self.port
    }
}
