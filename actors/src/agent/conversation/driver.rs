//! A conversation's live driver: one task per conversation holding its Agent session (one
//! adapter, or `claude -p` per message for `claude-cli`), taking prompts, permission answers
//! and stops, and handing every fact it learns to the service's [`Port`] to journal.
//!
//! A lost transport ends the message `unknown` and the session; the next prompt opens the
//! Agent session again with `session/load`, and where that fails the conversation needs a
//! choice. Nothing is ever sent twice.

use super::cli::{CliSession, CliSetup};
use super::entity::{ConversationEvent, Cut, KeptFile};
use super::kept::KeepLimits;
use super::launch::{Backend, LaunchError, Runtimes};
use super::record::{MessageRecord, RecordLimits};
use super::session::{AgentSession, PermissionRequest, TurnEvent};
use super::turn::turn;
use crate::error::ActorError;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};

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
    },
    Answer {
        request_id: String,
        option_id: String,
        by: String,
        done: oneshot::Sender<Result<(), ActorError>>,
    },
    /// Cancel the running turn; `done` fires once the prompt's response confirmed the end.
    Stop { done: oneshot::Sender<()> },
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

/// The step and wall-time caps of a message (`conversations.maxAgentTurns`, `turnWallMs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct TurnLimits {
    pub max_agent_turns: Option<u64>,
    pub turn_wall_ms: Option<u64>,
}

impl From<&crate::limits::ConversationLimits> for TurnLimits {
    fn from(l: &crate::limits::ConversationLimits) -> Self {
        TurnLimits {
            max_agent_turns: l.max_agent_turns,
            turn_wall_ms: l.turn_wall_ms,
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
}

/// Starts the driver task; it ends when the sender is dropped or the port refuses.
pub fn spawn(setup: Setup, port: Arc<dyn Port>) -> mpsc::UnboundedSender<Control> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(run(setup, port, rx));
    tx
}

/// The live Agent session of a conversation: an ACP adapter, or Claude Code's own CLI.
pub(super) enum Live {
    Acp(Box<AgentSession>),
    Cli(Box<CliSession>),
}

impl Live {
    pub(super) fn session_id(&self) -> &str {
        match self {
            Live::Acp(s) => &s.session_id,
            Live::Cli(s) => &s.session_id,
        }
    }

    pub(super) fn message(&self) -> &MessageRecord {
        match self {
            Live::Acp(s) => &s.message,
            Live::Cli(s) => &s.message,
        }
    }

    pub(super) fn prompt(&mut self, text: &str) -> Result<(), LaunchError> {
        match self {
            Live::Acp(s) => {
                s.prompt(text);
                Ok(())
            }
            Live::Cli(s) => s.prompt(text),
        }
    }

    pub(super) async fn next(&mut self) -> TurnEvent {
        match self {
            Live::Acp(s) => s.next().await,
            Live::Cli(s) => s.next().await,
        }
    }

    /// Answers a pending permission (the CLI never has one).
    pub(super) fn answer(&mut self, p: &PermissionRequest, option: &str) -> bool {
        match self {
            Live::Acp(s) => s.answer(p, option),
            Live::Cli(_) => false,
        }
    }

    pub(super) fn cancel(&mut self) {
        match self {
            Live::Acp(s) => s.cancel(),
            Live::Cli(s) => s.cancel(),
        }
    }

    pub(super) fn pgid(&mut self) -> Option<i32> {
        match self {
            Live::Acp(s) => s.adapter().pgid(),
            Live::Cli(s) => s.process().and_then(|p| p.pgid()),
        }
    }

    pub(super) fn stderr_tail(&mut self) -> String {
        match self {
            Live::Acp(s) => s.adapter().stderr_tail(),
            Live::Cli(s) => s.stderr_tail(),
        }
    }
}

async fn run(mut setup: Setup, port: Arc<dyn Port>, mut rx: mpsc::UnboundedReceiver<Control>) {
    let mut session: Option<Live> = None;
    while let Some(control) = rx.recv().await {
        let Control::Prompt {
            message_id,
            text,
            resume,
        } = control
        else {
            refuse_idle(control);
            continue;
        };
        if session.is_none() {
            setup.resume = resume;
            match open(&setup, &message_id).await {
                Ok((s, facts)) => {
                    setup.resume = Some(s.session_id().to_string());
                    session = Some(s);
                    if !port.learn(facts).await {
                        return;
                    }
                }
                Err(facts) => {
                    if !port.learn(facts).await {
                        return;
                    }
                    continue;
                }
            }
        }
        let Some(s) = session.as_mut() else { continue };
        let cwd = setup.cwd.clone();
        let max = setup.keep.compared_files;
        let before = tokio::task::spawn_blocking(move || super::kept::scan(&cwd, max));
        if let Err(e) = s.prompt(&text) {
            let facts = vec![ended(&message_id, "agent_unavailable", e.to_string())];
            if !port.learn(facts).await {
                return;
            }
            continue;
        }
        if let Live::Cli(_) = s {
            let started = vec![ConversationEvent::Session {
                agent_session_id: s.session_id().to_string(),
                pgid: s.pgid(),
            }];
            if !port.learn(started).await {
                return;
            }
        }
        let lost = turn(s, &setup, message_id, port.as_ref(), &mut rx, before).await;
        match lost {
            Some(false) => return,
            Some(true) => session = None,
            None => {}
        }
    }
}

fn ended(message_id: &str, code: &str, why: String) -> ConversationEvent {
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

/// Opens the session (new, or loaded); on failure the facts that end the message.
async fn open(
    setup: &Setup,
    message_id: &str,
) -> Result<(Live, Vec<ConversationEvent>), Vec<ConversationEvent>> {
    if setup.backend == Backend::ClaudeCli {
        let s = CliSession::new(
            CliSetup {
                runtimes: setup.runtimes.clone(),
                cwd: setup.cwd.clone(),
                mcp: setup.mcp.clone(),
                instructions: setup.instructions.clone(),
                mode: setup.mode.clone(),
                max_turns: setup.turn.max_agent_turns,
                limits: setup.limits,
            },
            setup.resume.as_deref(),
        );
        return Ok((Live::Cli(Box::new(s)), Vec::new()));
    }
    let started = AgentSession::start_with(
        &setup.runtimes,
        setup.backend,
        &setup.cwd,
        setup.mcp.clone(),
        setup.resume.as_deref(),
        setup.limits,
        setup.instructions.as_deref(),
    )
    .await;
    match started {
        Ok(mut s) => {
            let facts = vec![ConversationEvent::Session {
                agent_session_id: s.session_id.clone(),
                pgid: s.adapter().pgid(),
            }];
            if let Some(mode) = setup.mode.as_deref().filter(|_| setup.resume.is_none()) {
                if let Err(e) = s.set_mode(mode).await {
                    tracing::warn!(target: "rho::agent::conversation", error = %e, "the Agent refused the mode");
                }
            }
            Ok((Live::Acp(Box::new(s)), facts))
        }
        Err(e) => match setup.resume.as_deref() {
            Some(resume) => Err(needs_choice(resume, &e.to_string(), message_id)),
            None => Err(vec![ended(message_id, "agent_unavailable", e.to_string())]),
        },
    }
}

fn refuse_idle(control: Control) {
    match control {
        Control::Answer { done, .. } => {
            let _ = done.send(Err(ActorError::conflict(
                "that permission request is no longer pending",
            )));
        }
        Control::Stop { done } => drop(done),
        Control::Prompt { .. } => {}
    }
}

/// What the service gives every conversation: where the runtimes are, the default backend
/// (`--agent-backend` / `RHO_AGENT_BACKEND`), what a message keeps and how long a stop waits.
#[derive(Debug, Clone)]
pub struct ServiceSetup {
    pub runtimes: Runtimes,
    pub default_backend: Backend,
    pub limits: RecordLimits,
    pub turn: TurnLimits,
    pub keep: KeepLimits,
    pub stop_bound: Duration,
}
