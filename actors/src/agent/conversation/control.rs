//! What a conversation's driver and its turns share: the controls a driver takes, the service's
//! [`Port`], the caps and setup of a session, what every session is told, and the live Agent
//! session itself (an ACP adapter, or Claude Code's own CLI).

use super::cli::CliSession;
use super::entity::{ConversationEvent, Cut, KeptFile};
use super::kept::KeepLimits;
use super::launch::{Backend, Runtimes};
use super::native::{NativeConfig, NativeLive};
use super::record::{MessageRecord, RecordLimits};
use super::session::{AgentSession, PermissionRequest, TurnEvent};
use crate::error::ActorError;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use tokio::sync::oneshot;

/// What every Agent session Rho starts is told (issue 17, seed: exploratory code in the
/// notebook sessions, results relied on in scripts).
pub const INSTRUCTIONS: &str = include_str!("instructions.md");

/// What the driver is asked to do.
pub enum Control {
    Prompt {
        message_id: String,
        text: String,
        /// The Agent session to load when none is open (`None`: a new one).
        resume: Option<String>,
        /// Rho's own agent: the summary of the earlier messages a newly opened session is
        /// given first (nothing is replayed; its transcript starts from the journal).
        history: Option<String>,
    },
    Answer {
        request_id: String,
        option_id: String,
        by: String,
        done: oneshot::Sender<Result<(), ActorError>>,
    },
    /// Cancel the running turn; `done` fires once the prompt's response confirmed the end.
    Stop { done: oneshot::Sender<()> },
    /// `/mcp`: the MCP servers as Rho's own agent's live session runs them (`None`: no such
    /// session).
    Servers {
        done: oneshot::Sender<Option<Vec<rho_mcp::report::ServerReport>>>,
    },
    /// The MCP runtime of Rho's own agent's session, shared (`None`: none runs): the panel's
    /// prompts, suggestions and resources are read on it without holding up the driver.
    Runtime {
        done: oneshot::Sender<Option<std::sync::Arc<rho_mcp::runtime::McpRuntime>>>,
    },
    /// The details of an open form or sampling question (`None`: not open).
    Question {
        request_id: String,
        done: oneshot::Sender<Option<super::surfaces_contract::QuestionView>>,
    },
    /// The person's answer to a form or sampling question (`conversation.answer`).
    Reply {
        request_id: String,
        action: String,
        content: Value,
        by: String,
        done: oneshot::Sender<Result<(), ActorError>>,
    },
}

/// A future the service answers.
pub type Answer<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// What a driver asks of the service (the project actor).
pub trait Port: Send + Sync + 'static {
    /// Journals facts; `false` when the project is gone (the driver stops).
    fn learn(&self, events: Vec<ConversationEvent>) -> Answer<bool>;
    /// Keeps these project files (relative paths): each captured version, or `(path, why)`.
    fn keep(&self, paths: Vec<String>) -> Answer<Vec<Result<KeptFile, (String, String)>>>;
    /// Reloads clean open buffers whose file changed on disk (the Agent wrote it).
    fn reload(&self) -> Answer<()>;
}

/// The step and wall-time caps of a message (`conversations.maxAgentTurns`, `turnWallMs`), and
/// how long an idle session of Rho's own agent stays open (`rhoIdleMs`; 0: no limit).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnLimits {
    pub max_agent_turns: Option<u64>,
    pub turn_wall_ms: Option<u64>,
    pub rho_idle_ms: u64,
}

impl From<&crate::limits::ConversationLimits> for TurnLimits {
    fn from(l: &crate::limits::ConversationLimits) -> Self {
        TurnLimits {
            max_agent_turns: l.max_agent_turns,
            turn_wall_ms: l.turn_wall_ms,
            rho_idle_ms: l.rho_idle_ms,
        }
    }
}

/// Everything a driver needs to open (or load) its Agent session.
#[derive(Clone)]
pub struct Setup {
    pub runtimes: Runtimes,
    pub backend: Backend,
    pub cwd: PathBuf,
    /// The conversation's own `rho --mcp` server entry.
    pub mcp: Vec<Value>,
    /// The Agent session to load (after a restart).
    pub resume: Option<String>,
    pub mode: Option<String>,
    pub limits: RecordLimits,
    pub turn: TurnLimits,
    pub keep: KeepLimits,
    /// Appended to the Agent's system prompt ([`INSTRUCTIONS`] in the service).
    pub instructions: Option<String>,
    /// Rho's own agent: where its model and MCP servers are configured.
    pub native: NativeConfig,
    /// Rho's own agent: the conversation's grant connection file (its project tools).
    pub grant_file: Option<PathBuf>,
}

/// The live Agent session of a conversation: an ACP adapter, or Claude Code's own CLI.
pub(super) enum Live {
    Acp(Box<AgentSession>),
    Cli(Box<CliSession>),
    Native(Box<NativeLive>),
}

impl Live {
    pub(super) fn session_id(&self) -> &str {
        match self {
            Live::Acp(s) => &s.session_id,
            Live::Cli(s) => &s.session_id,
            Live::Native(s) => &s.session_id,
        }
    }

    pub(super) fn message(&self) -> &MessageRecord {
        match self {
            Live::Acp(s) => &s.message,
            Live::Cli(s) => &s.message,
            Live::Native(s) => &s.message,
        }
    }

    /// Starts a turn; `history` is the summary a new session of Rho's own agent is given first
    /// (the others are never given one here). Fails with the error code the message ends with.
    pub(super) async fn prompt(
        &mut self,
        text: &str,
        history: Option<String>,
    ) -> Result<(), super::native_input::InputError> {
        match self {
            Live::Acp(s) => {
                s.prompt(text);
                Ok(())
            }
            Live::Cli(s) => s
                .prompt(text)
                .map_err(|e| ("agent_unavailable", e.to_string())),
            Live::Native(s) => s.prompt(text, history).await,
        }
    }

    /// The MCP runtime of Rho's own agent's session (`None` for the others, or without
    /// servers).
    pub(super) fn runtime(&self) -> Option<std::sync::Arc<rho_mcp::runtime::McpRuntime>> {
        match self {
            Live::Native(s) => s.runtime(),
            _ => None,
        }
    }

    pub(super) async fn next(&mut self) -> TurnEvent {
        match self {
            Live::Acp(s) => s.next().await,
            Live::Cli(s) => s.next().await,
            Live::Native(s) => s.next().await,
        }
    }

    /// Answers a pending permission (the CLI never has one).
    pub(super) fn answer(&mut self, p: &PermissionRequest, option: &str) -> bool {
        match self {
            Live::Cli(_) | Live::Native(_) => false,
            Live::Acp(s) => s.answer(p, option),
        }
    }

    /// The details of an open form or sampling question of Rho's own agent.
    pub(super) fn question(
        &self,
        request_id: &str,
        p: &PermissionRequest,
    ) -> Option<super::surfaces_contract::QuestionView> {
        match self {
            Live::Native(s) => s.question(request_id, p),
            _ => None,
        }
    }

    /// Answers a form or sampling question of Rho's own agent (whether the turn must stop).
    pub(super) fn reply(
        &mut self,
        p: &PermissionRequest,
        action: &str,
        content: &Value,
    ) -> Result<bool, ActorError> {
        match self {
            Live::Native(s) => s.reply(p, action, content),
            _ => Err(ActorError::invalid(
                "requestId",
                "that request is the Agent's permission: answer it with conversation.permission",
            )),
        }
    }

    pub(super) fn cancel(&mut self) {
        match self {
            Live::Acp(s) => s.cancel(),
            Live::Cli(s) => s.cancel(),
            Live::Native(s) => s.cancel(),
        }
    }

    pub(super) fn pgid(&mut self) -> Option<i32> {
        match self {
            Live::Acp(s) => s.adapter().pgid(),
            Live::Cli(s) => s.process().and_then(|p| p.pgid()),
            Live::Native(_) => None,
        }
    }

    /// `/mcp` of Rho's own agent (`None` for the other backends: they start no MCP server).
    pub(super) fn mcp_report(&self) -> Option<Vec<rho_mcp::report::ServerReport>> {
        match self {
            Live::Native(s) => s.mcp_report(),
            _ => None,
        }
    }

    pub(super) fn stderr_tail(&mut self) -> String {
        match self {
            Live::Acp(s) => s.adapter().stderr_tail(),
            Live::Cli(s) => s.stderr_tail(),
            Live::Native(_) => "Rho's own agent session ended".into(),
        }
    }
}

pub(super) fn ended(message_id: &str, code: &str, why: String) -> ConversationEvent {
    ConversationEvent::Ended {
        message_id: message_id.to_string(),
        stop_reason: Some("error".into()),
        usage: None,
        error: Some((code.to_string(), why)),
        cut: Cut::default(),
    }
}

/// The facts of a session that cannot be continued: the person chooses.
pub(super) fn needs_choice(resume: &str, why: &str, message_id: &str) -> Vec<ConversationEvent> {
    let note = format!(
        "the Agent session {resume} could not be continued ({why}); continue in a fresh Agent session given a summary of this conversation, or start a new conversation"
    );
    vec![
        ConversationEvent::NeedsChoice { note: note.clone() },
        ended(message_id, "needs_choice", note),
    ]
}
