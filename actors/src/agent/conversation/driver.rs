//! A conversation's live driver: one task per conversation holding its Agent session (one
//! adapter, or `claude -p` per message for `claude-cli`), taking prompts, permission answers
//! and stops, and handing every fact it learns to the service's [`Port`] to journal.
//!
//! A lost transport ends the message `unknown` and the session; the next prompt opens the
//! Agent session again with `session/load`, and where that fails the conversation needs a
//! choice. Nothing is ever sent twice. A driver of Rho's own agent also opens its session for
//! the panel's palettes, without a message (decision 0811).

use super::cli::{CliSession, CliSetup};
use super::control::{ended, needs_choice, Live};
pub use super::control::{Answer, Control, Port, Setup, TurnLimits, INSTRUCTIONS};
use super::entity::ConversationEvent;
use super::kept::KeepLimits;
use super::launch::{Backend, Runtimes};
use super::native::{NativeConfig, NativeLive};
use super::record::RecordLimits;
use super::session::AgentSession;
use super::turn::turn;
use crate::error::ActorError;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::mpsc;

/// Starts the driver task; it ends when the sender is dropped or the port refuses.
pub fn spawn(setup: Setup, port: Arc<dyn Port>) -> mpsc::UnboundedSender<Control> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(run(setup, port, rx));
    tx
}

async fn run(mut setup: Setup, port: Arc<dyn Port>, mut rx: mpsc::UnboundedReceiver<Control>) {
    let mut session: Option<Live> = None;
    // A session of Rho's own agent opened for the panel's palettes, before any message: the
    // first message it takes is still given the history summary.
    let mut fresh = false;
    loop {
        let control = match idle_or_next(&mut session, &setup, &mut rx).await {
            Next::Control(c) => c,
            Next::Closed => break,
            // The idle session closed: the next message or palette read opens a new one.
            Next::Idle => {
                fresh = false;
                let closed = vec![ConversationEvent::Servers { groups: Vec::new() }];
                if !port.learn(closed).await {
                    break;
                }
                continue;
            }
        };
        let Control::Prompt {
            message_id,
            text,
            resume,
            history,
        } = control
        else {
            match control {
                Control::Servers { done } => {
                    let _ = done.send(session.as_ref().and_then(Live::mcp_report));
                }
                Control::Runtime { done } => {
                    if session.is_none() && setup.backend == Backend::Rho {
                        match open_native(&setup).await {
                            Ok((s, facts)) => {
                                setup.resume = Some(s.session_id().to_string());
                                session = Some(s);
                                fresh = true;
                                if !port.learn(facts).await {
                                    break;
                                }
                            }
                            Err(why) => {
                                tracing::warn!(target: "rho::agent::conversation", %why, "Rho's own agent could not open a session for the palettes");
                            }
                        }
                    }
                    let _ = done.send(session.as_ref().and_then(Live::runtime));
                }
                other => refuse_idle(other),
            }
            continue;
        };
        // The summary a newly opened session of Rho's own agent is given before the text.
        let mut given = if std::mem::take(&mut fresh) {
            history.clone()
        } else {
            None
        };
        if session.is_none() {
            setup.resume = resume;
            match open(&setup, &message_id).await {
                Ok((s, facts)) => {
                    if let Live::Native(_) = &s {
                        given = history;
                    }
                    setup.resume = Some(s.session_id().to_string());
                    session = Some(s);
                    if !port.learn(facts).await {
                        break;
                    }
                }
                Err(facts) => {
                    if !port.learn(facts).await {
                        break;
                    }
                    continue;
                }
            }
        }
        let Some(s) = session.as_mut() else { continue };
        let cwd = setup.cwd.clone();
        let max = setup.keep.compared_files;
        let before = tokio::task::spawn_blocking(move || super::kept::scan(&cwd, max));
        if let Err((code, e)) = s.prompt(&text, given).await {
            let facts = vec![ended(&message_id, code, e)];
            if !port.learn(facts).await {
                break;
            }
            continue;
        }
        if let Live::Cli(_) = s {
            let started = vec![ConversationEvent::Session {
                agent_session_id: s.session_id().to_string(),
                pgid: s.pgid(),
            }];
            if !port.learn(started).await {
                break;
            }
        }
        let lost = turn(s, &setup, message_id, port.as_ref(), &mut rx, before).await;
        match lost {
            Some(false) => break,
            Some(true) => session = None,
            None => {}
        }
    }
    // Rho's own agent closes its MCP servers in order; an adapter's group dies with its handle.
    if let Some(Live::Native(mut s)) = session {
        s.shutdown().await;
        let _ = port
            .learn(vec![ConversationEvent::Servers { groups: Vec::new() }])
            .await;
    }
}

/// Opens the session (new, or loaded); on failure the facts that end the message.
async fn open(
    setup: &Setup,
    message_id: &str,
) -> Result<(Live, Vec<ConversationEvent>), Vec<ConversationEvent>> {
    if setup.backend == Backend::Rho {
        return open_native(setup)
            .await
            .map_err(|why| vec![ended(message_id, "agent_unavailable", why)]);
    }
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

/// What the driver waits for.
enum Next {
    Control(Control),
    /// The session of Rho's own agent was idle for `rhoIdleMs` and has closed.
    Idle,
    /// The service dropped the driver.
    Closed,
}

/// The next control; a session of Rho's own agent that waits longer than `rhoIdleMs` for one
/// is closed first (its MCP servers in order) and left `None`.
async fn idle_or_next(
    session: &mut Option<Live>,
    setup: &Setup,
    rx: &mut mpsc::UnboundedReceiver<Control>,
) -> Next {
    let idle = Duration::from_millis(setup.turn.rho_idle_ms);
    let next = |c: Option<Control>| c.map_or(Next::Closed, Next::Control);
    let Some(Live::Native(s)) = session.as_mut().filter(|_| !idle.is_zero()) else {
        return next(rx.recv().await);
    };
    match tokio::time::timeout(idle, rx.recv()).await {
        Ok(c) => next(c),
        Err(_) => {
            tracing::info!(target: "rho::agent::conversation", session = %s.session_id, "closing an idle session of Rho's own agent");
            s.shutdown().await;
            *session = None;
            Next::Idle
        }
    }
}

/// Opens a session of Rho's own agent (with or without a message): the facts of its session
/// and MCP server groups to journal, or why it is unavailable.
async fn open_native(setup: &Setup) -> Result<(Live, Vec<ConversationEvent>), String> {
    let mut s = NativeLive::start(
        &setup.native,
        setup.grant_file.as_deref(),
        &setup.cwd,
        setup.limits,
    )
    .await?;
    let facts = vec![
        ConversationEvent::Session {
            agent_session_id: s.session_id.clone(),
            pgid: None,
        },
        ConversationEvent::Servers {
            groups: s.servers().await,
        },
    ];
    Ok((Live::Native(Box::new(s)), facts))
}

fn refuse_idle(control: Control) {
    match control {
        Control::Answer { done, .. } => {
            let _ = done.send(Err(ActorError::conflict(
                "that permission request is no longer pending",
            )));
        }
        Control::Stop { done } => drop(done),
        Control::Servers { done } => {
            let _ = done.send(None);
        }
        Control::Question { done, .. } => {
            let _ = done.send(None);
        }
        Control::Runtime { done } => {
            let _ = done.send(None);
        }
        Control::Reply { done, .. } => {
            let _ = done.send(Err(ActorError::conflict(
                "that question is no longer pending",
            )));
        }
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
    /// Rho's own agent: where its model and MCP servers are configured.
    pub native: NativeConfig,
}
