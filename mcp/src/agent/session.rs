//! A native session: Rho's own agent on plain tokio. It starts the enabled MCP servers with the
//! session's policies (a person can be asked; the model may be spent on sampling behind both
//! gates), holds the transcript, runs one turn at a time as a task, and reports everything as
//! [`AgentEvent`]s. The driver-facing face mirrors the ACP session's: `prompt`, `next`,
//! `answer_form` / `answer_sampling`, `cancel`, `shutdown`.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::client::config::McpConfig;
use crate::client::policy::{Answer, Model, Policies, Responder, UsageLedger};
use crate::client::runtime::{McpRuntime, StartOptions};
use crate::model::{Message, ModelClient, Part};

use super::desk::{Bridge, Current, Desk};
use super::events::AgentEvent;
use super::ledger::Ledger;
use super::project::ProjectTools;
use super::prompt::system_prompt;
use super::tools::ToolSet;
use super::turn::{self, TurnCtx};

/// The most model requests one turn may make (each tool round trip is one).
pub const DEFAULT_MAX_STEPS: u32 = 64;

/// What a session starts with.
pub struct NativeSetup {
    /// The person's model.
    pub model: ModelClient,
    /// The selected config's MCP servers and the plugins' (none enabled: nothing starts).
    pub mcp: McpConfig,
    /// How servers start (budgets, workspace root, eras, OAuth store); the session supplies the
    /// policies.
    pub start: StartOptions,
    /// The project's granted operations.
    pub project: Option<Arc<dyn ProjectTools>>,
    /// Whether a person can answer a form (declares elicitation to servers).
    pub can_ask: bool,
    /// The most model requests of one turn.
    pub max_steps: u32,
    /// Replaces Rho's own system text (tests, benchmarks).
    pub system: Option<String>,
}

impl std::fmt::Debug for NativeSetup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NativeSetup")
            .field("model", &self.model.model())
            .field("servers", &self.mcp.entries.len())
            .field("project", &self.project.is_some())
            .field("can_ask", &self.can_ask)
            .finish()
    }
}

/// Why the session refused a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AgentError {
    /// A turn is running.
    #[error("a turn is already running; wait for it or stop it")]
    Busy,
    /// No open question has this id.
    #[error("no open question {0} (it was answered, or its turn ended)")]
    NoQuestion(u64),
    /// A slash command cannot become a turn (nothing was sent).
    #[error("{0}")]
    Prompt(String),
    /// A resource could not be attached.
    #[error("{0}")]
    Resource(String),
    /// No MCP server is running in this session.
    #[error("no MCP server is running in this session")]
    NoServers,
}

/// A running native session.
#[derive(Debug)]
pub struct NativeSession {
    pub(crate) desk: Arc<Desk>,
    pub(crate) runtime: Option<Arc<McpRuntime>>,
    pub(crate) mcp: McpConfig,
    pub(crate) client: ModelClient,
    ctx: TurnCtx,
    events: mpsc::UnboundedReceiver<AgentEvent>,
    messages: AtomicU64,
    turn: Option<tokio::task::JoinHandle<()>>,
}

impl NativeSession {
    /// Starts the session: every enabled MCP server (each failure disables only that server).
    pub async fn start(setup: NativeSetup) -> NativeSession {
        let (tx, events) = mpsc::unbounded_channel();
        let desk = Desk::new(tx, setup.model.model().to_owned());
        let bridge = Arc::new(Bridge {
            desk: Arc::clone(&desk),
            client: setup.model.clone(),
        });
        let mut start = setup.start;
        start.connect.policies = Policies {
            responder: setup
                .can_ask
                .then(|| Arc::clone(&bridge) as Arc<dyn Responder>),
            model: Some(Arc::clone(&bridge) as Arc<dyn Model>),
            ledger: Some(Arc::clone(&bridge) as Arc<dyn UsageLedger>),
        };
        let runtime = McpRuntime::start(&setup.mcp, start).await.map(Arc::new);
        let instructions = runtime
            .as_ref()
            .map(|r| r.instructions())
            .unwrap_or_default();
        let ctx = TurnCtx {
            desk: Arc::clone(&desk),
            client: setup.model.clone(),
            tools: ToolSet {
                mcp: runtime.clone(),
                project: setup.project,
            },
            transcript: Arc::new(tokio::sync::Mutex::new(Vec::new())),
            system: system_prompt(setup.system.as_deref(), &instructions),
            max_steps: setup.max_steps.max(1),
            busy: Arc::new(AtomicBool::new(false)),
        };
        NativeSession {
            desk,
            runtime,
            mcp: setup.mcp,
            client: setup.model,
            ctx,
            events,
            messages: AtomicU64::new(0),
            turn: None,
        }
    }

    /// Starts a turn with the person's message (text, a resolved prompt, attachments); its
    /// number is returned and its events follow on [`next`](Self::next).
    pub fn prompt(&mut self, input: Vec<Part>) -> Result<u64, AgentError> {
        let empty = |p: &Part| matches!(p, Part::Text(t) if t.trim().is_empty());
        if input.iter().all(empty) {
            return Err(AgentError::Prompt("the message is empty".to_owned()));
        }
        if self.ctx.busy.swap(true, Ordering::SeqCst) {
            return Err(AgentError::Busy);
        }
        let message = self.messages.fetch_add(1, Ordering::SeqCst) + 1;
        let cancel = CancellationToken::new();
        *self
            .desk
            .current
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Current {
            message: Some(message),
            call: None,
            cancel: cancel.clone(),
        };
        self.turn = Some(tokio::spawn(turn::run(
            self.ctx.clone(),
            message,
            input,
            cancel,
        )));
        Ok(message)
    }

    /// The next event (a turn's, or a question outside one); `None` once the session is gone.
    pub async fn next(&mut self) -> Option<AgentEvent> {
        self.events.recv().await
    }

    /// Whether a turn is running.
    pub fn running(&self) -> bool {
        self.ctx.busy.load(Ordering::SeqCst)
    }

    /// Cancels the running turn: the model request is dropped and an in-flight MCP call gets
    /// `notifications/cancelled`; open questions are withdrawn. Nothing when idle.
    pub fn cancel(&self) {
        self.desk.current().cancel.cancel();
    }

    /// The person's answer to form `id` (submitted, declined, or dismissed, which also ends
    /// the turn).
    pub fn answer_form(&self, id: u64, answer: Answer) -> Result<(), AgentError> {
        if self.desk.answer_form(id, answer) {
            Ok(())
        } else {
            Err(AgentError::NoQuestion(id))
        }
    }

    /// The person's answer to sampling question `id`.
    pub fn answer_sampling(&self, id: u64, allow: bool) -> Result<(), AgentError> {
        if self.desk.answer_sampling(id, allow) {
            Ok(())
        } else {
            Err(AgentError::NoQuestion(id))
        }
    }

    /// How many forms are open.
    pub fn open_forms(&self) -> usize {
        self.desk.open_forms()
    }

    /// The usage ledger so far.
    pub fn ledger(&self) -> Ledger {
        self.desk
            .ledger
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// The last tool round trips (the loop's own time next to the calls), for diagnostics and
    /// the benchmark.
    pub fn round_trips(&self) -> Vec<super::desk::RoundTrip> {
        self.desk.round_trips()
    }

    /// The transcript the model sees (waits for a running turn).
    pub async fn transcript(&self) -> Vec<Message> {
        self.ctx.transcript.lock().await.clone()
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        self.client.model()
    }

    /// The MCP runtime, when any server is enabled.
    pub fn runtime(&self) -> Option<&Arc<McpRuntime>> {
        self.runtime.as_ref()
    }

    /// The system prompt every request carries.
    pub fn system(&self) -> &str {
        &self.ctx.system
    }

    /// The process groups of the stdio servers (journaled for cleanup after a crash).
    pub async fn server_pgids(&self) -> Vec<i32> {
        let mut out = Vec::new();
        if let Some(rt) = &self.runtime {
            for i in 0..rt.slots().len() {
                if let Some(l) = rt.live(i) {
                    if let Some(p) = l.pgid().await {
                        out.push(p);
                    }
                }
            }
        }
        out
    }

    /// Ends the session: a running turn is cancelled and awaited, then every server closes in
    /// order (bounded).
    pub async fn shutdown(mut self) {
        self.cancel();
        if let Some(t) = self.turn.take() {
            let _ = t.await;
        }
        self.ctx.tools.mcp = None;
        if let Some(rt) = self.runtime.take() {
            match Arc::try_unwrap(rt) {
                Ok(rt) => rt.shutdown().await,
                Err(_) => {
                    tracing::warn!(target: "rho::agent", "the MCP runtime is still shared at shutdown; its servers close on drop")
                }
            }
        }
    }
}

impl Drop for NativeSession {
    /// A session dropped without `shutdown` still stops its running turn (no model request or
    /// tool call goes on for nobody); its servers close as the runtime drops.
    fn drop(&mut self) {
        self.desk.current().cancel.cancel();
    }
}
