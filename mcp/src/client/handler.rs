//! The client side rmcp drives for one server: declared capabilities, roots, server logs,
//! progress routing and list-change signals.

// Roots, sampling and logging are deprecated by SEP-2577 upstream, yet the servers people run
// today still use them, and the seed requires answering them.
#![allow(deprecated)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use rmcp::model::{
    ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
    ElicitRequestParams, ElicitResult, ElicitationCapability, FormElicitationCapability,
    Implementation, ListRootsResult, LoggingLevel, LoggingMessageNotificationParam,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, Root, RootsCapabilities,
    SamplingCapability,
};
use rmcp::service::{NotificationContext, RequestContext, RoleClient};
use rmcp::ErrorData;
use tokio::sync::mpsc;

/// One progress report for a running call.
#[derive(Debug, Clone, PartialEq)]
pub struct Progress {
    /// Progress so far.
    pub progress: f64,
    /// Total, when the server supplies one (counts are shown only then).
    pub total: Option<f64>,
    /// The server's message.
    pub message: Option<String>,
}

/// Which list a server said changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListChanged {
    /// `notifications/tools/list_changed`
    Tools,
    /// `notifications/prompts/list_changed`
    Prompts,
    /// `notifications/resources/list_changed`
    Resources,
}

/// What this client declares and answers for one server.
#[derive(Debug, Clone)]
pub struct HandlerOptions {
    /// Server identity (for logs).
    pub server_id: String,
    /// The session workspace, advertised as the one `file://` root.
    pub workspace: Option<PathBuf>,
    /// The server's in-flight calls (routing of legacy-era questions).
    pub inflight: crate::client::inflight::InFlight,
    /// Responder, model and ledger of this run.
    pub policies: crate::client::policy::Policies,
    /// Gate one's config half for sampling.
    pub sampling_allowed: bool,
}

/// Routes progress notifications to the call that owns the token.
#[derive(Debug, Default, Clone)]
pub struct ProgressRoutes(Arc<Mutex<HashMap<ProgressToken, mpsc::UnboundedSender<Progress>>>>);

impl ProgressRoutes {
    /// Starts routing `token` to `sink`.
    pub fn add(&self, token: ProgressToken, sink: mpsc::UnboundedSender<Progress>) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token, sink);
    }

    /// Stops routing `token`.
    pub fn remove(&self, token: &ProgressToken) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(token);
    }

    fn route(&self, p: ProgressNotificationParam) {
        let map = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(sink) = map.get(&p.progress_token) {
            let _ = sink.send(Progress {
                progress: p.progress,
                total: p.total,
                message: p.message,
            });
        }
    }
}

/// rmcp's `ClientHandler` for one server.
#[derive(Debug)]
pub struct RhoClient {
    opts: HandlerOptions,
    progress: ProgressRoutes,
    list_changed: mpsc::UnboundedSender<ListChanged>,
}

impl RhoClient {
    /// A handler that signals list changes on `list_changed`.
    pub fn new(
        opts: HandlerOptions,
        progress: ProgressRoutes,
        list_changed: mpsc::UnboundedSender<ListChanged>,
    ) -> Self {
        Self {
            opts,
            progress,
            list_changed,
        }
    }

    /// The capabilities Rho declares: only those it will actually answer.
    pub fn capabilities(&self) -> ClientCapabilities {
        let mut caps = ClientCapabilities::default();
        if self.opts.workspace.is_some() {
            let mut roots = RootsCapabilities::default();
            roots.list_changed = Some(false);
            caps.roots = Some(roots);
        }
        if self.opts.policies.responder.is_some() {
            let mut form = FormElicitationCapability::default();
            form.schema_validation = Some(false);
            let mut elicitation = ElicitationCapability::default();
            elicitation.form = Some(form);
            caps.elicitation = Some(elicitation);
        }
        if self.declares_sampling() {
            caps.sampling = Some(SamplingCapability::default());
        }
        caps
    }

    /// Sampling is declared only with the config opt-in, a model and a person to confirm.
    pub fn declares_sampling(&self) -> bool {
        self.opts.sampling_allowed
            && self.opts.policies.model.is_some()
            && self.opts.policies.responder.is_some()
    }

    fn roots(&self) -> ListRootsResult {
        roots_result(self.opts.workspace.as_deref())
    }
}

/// The roots answer: the session workspace as one `file://` root (or none).
pub fn roots_result(workspace: Option<&std::path::Path>) -> ListRootsResult {
    {
        let roots = workspace
            .iter()
            .map(|w| {
                let mut root = Root::new(file_uri(w));
                root.name = Some("workspace".to_owned());
                root
            })
            .collect();
        ListRootsResult::new(roots)
    }
}

/// `file://` URI of an absolute path, percent-encoding what a URI path cannot hold.
pub fn file_uri(path: &std::path::Path) -> String {
    let mut out = String::from("file://");
    for b in path.to_string_lossy().bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

impl rmcp::ClientHandler for RhoClient {
    fn get_info(&self) -> ClientConfig {
        let mut cfg = ClientConfig::new(
            self.capabilities(),
            Implementation::new("rho", env!("CARGO_PKG_VERSION")),
        );
        // Legacy initialize must advertise the legacy revision, not rmcp's newest.
        cfg.protocol_version = ProtocolVersion::V_2025_11_25;
        cfg
    }

    async fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        Ok(self.roots())
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let (params, order) = crate::client::elicit::wire_params(&request);
        // Legacy era: the request names no call, so answer only with exactly one in flight.
        let outcome = match self.opts.inflight.single() {
            None => crate::client::elicit::Outcome::Decline,
            Some((budget, cancel)) => {
                let o = crate::client::elicit::elicit(
                    &self.opts.policies,
                    &self.opts.server_id,
                    (&params, &order),
                    Some(&budget),
                )
                .await;
                if o == crate::client::elicit::Outcome::Cancel {
                    cancel.cancel();
                }
                o
            }
        };
        serde_json::from_value(crate::client::elicit::result_json(&outcome))
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        let Some((budget, cancel)) = self.opts.inflight.single() else {
            return Err(ErrorData::invalid_request(
                crate::client::sampling::SamplingError::NotRouted.to_string(),
                None,
            ));
        };
        let params = serde_json::to_value(&params).unwrap_or_default();
        let result = crate::client::sampling::sample(
            &self.opts.policies,
            self.declares_sampling(),
            &self.opts.server_id,
            &params,
            Some(&budget),
            Some(&cancel),
        )
        .await
        .map_err(|e| ErrorData::invalid_request(e.to_string(), None))?;
        serde_json::from_value(result).map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.route(params);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        log_server_message(&self.opts.server_id, &params);
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(ListChanged::Tools);
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(ListChanged::Prompts);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.list_changed.send(ListChanged::Resources);
    }
}

/// Puts one server log message into tracing under `rho::mcp::server`; above error is error.
pub fn log_server_message(server: &str, p: &LoggingMessageNotificationParam) {
    let logger = p.logger.as_deref().unwrap_or("");
    let data = match &p.data {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    match p.level {
        LoggingLevel::Debug => {
            tracing::debug!(target: "rho::mcp::server", server, logger, "{data}")
        }
        LoggingLevel::Info | LoggingLevel::Notice => {
            tracing::info!(target: "rho::mcp::server", server, logger, "{data}")
        }
        LoggingLevel::Warning => {
            tracing::warn!(target: "rho::mcp::server", server, logger, "{data}")
        }
        LoggingLevel::Error
        | LoggingLevel::Critical
        | LoggingLevel::Alert
        | LoggingLevel::Emergency => {
            tracing::error!(target: "rho::mcp::server", server, logger, "{data}")
        }
    }
}
