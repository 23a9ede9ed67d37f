//! A conversation's live driver: one task per conversation holding its Agent session (one
//! adapter), taking prompts, permission answers and stops, and handing every fact it learns to
//! the project actor to journal (text batched per 50 ms or 4 KiB, decision 0702).
//!
//! A lost transport ends the message `unknown` and the session; the next prompt opens the
//! Agent session again with `session/load`, and where that fails the conversation needs a
//! choice. Nothing is ever sent twice.

use super::entity::{ConversationEvent, Cut, Permission};
use super::launch::{Backend, Runtimes};
use super::record::{RecordLimits, ToolStep};
use super::session::{AgentSession, PermissionRequest, TurnEvent};
use crate::error::ActorError;
use serde_json::Value;
use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tokio::time::Instant;

/// Text is journaled at most this often while it streams...
const TEXT_EVERY: Duration = Duration::from_millis(50);
/// ...or as soon as this much is waiting.
const TEXT_BYTES: usize = 4096;

/// What the driver is asked to do.
pub enum Control {
    Prompt {
        message_id: String,
        text: String,
    },
    Answer {
        request_id: String,
        option_id: String,
        by: String,
        done: oneshot::Sender<Result<(), ActorError>>,
    },
    /// Cancel the running turn; `done` fires once the prompt's response confirmed the end.
    Stop {
        done: oneshot::Sender<()>,
    },
}

/// Where the driver hands its facts (the project actor, in the service).
pub type Sink = std::sync::Arc<
    dyn Fn(
            Vec<ConversationEvent>,
        ) -> std::pin::Pin<Box<dyn std::future::Future<Output = bool> + Send>>
        + Send
        + Sync,
>;

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
}

/// Starts the driver task; it ends when the sender is dropped or the sink refuses.
pub fn spawn(setup: Setup, sink: Sink) -> mpsc::UnboundedSender<Control> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(run(setup, sink, rx));
    tx
}

/// The state of one running turn.
struct Turn {
    message_id: String,
    sent_text: usize,
    due: Option<Instant>,
    sent_steps: HashMap<String, ToolStep>,
    pending: HashMap<String, PermissionRequest>,
    asked: u64,
    waiters: Vec<oneshot::Sender<()>>,
}

enum Wake {
    Event(TurnEvent),
    Control(Option<Control>),
    Flush,
}

async fn run(mut setup: Setup, sink: Sink, mut rx: mpsc::UnboundedReceiver<Control>) {
    let mut session: Option<AgentSession> = None;
    while let Some(control) = rx.recv().await {
        let Control::Prompt { message_id, text } = control else {
            refuse_idle(control);
            continue;
        };
        if session.is_none() {
            match open(&setup, &message_id).await {
                Ok((s, facts)) => {
                    setup.resume = Some(s.session_id.clone());
                    session = Some(s);
                    if !sink(facts).await {
                        return;
                    }
                }
                Err(facts) => {
                    if !sink(facts).await {
                        return;
                    }
                    continue;
                }
            }
        }
        let Some(s) = session.as_mut() else { continue };
        s.prompt(&text);
        let lost = turn(s, message_id, &sink, &mut rx).await;
        match lost {
            Some(false) => return,
            Some(true) => session = None,
            None => {}
        }
    }
}

/// Opens the session (new, or loaded); on failure the facts that end the message.
async fn open(
    setup: &Setup,
    message_id: &str,
) -> Result<(AgentSession, Vec<ConversationEvent>), Vec<ConversationEvent>> {
    let started = AgentSession::start(
        &setup.runtimes,
        setup.backend,
        &setup.cwd,
        setup.mcp.clone(),
        setup.resume.as_deref(),
        setup.limits,
    )
    .await;
    let ended = |code: &str, why: String| ConversationEvent::Ended {
        message_id: message_id.to_string(),
        stop_reason: Some("error".into()),
        usage: None,
        error: Some((code.to_string(), why)),
        cut: Cut::default(),
    };
    match started {
        Ok(mut s) => {
            let mut facts = vec![ConversationEvent::Session {
                agent_session_id: s.session_id.clone(),
                pgid: s.adapter().pgid(),
            }];
            if let Some(mode) = setup.mode.as_deref().filter(|_| setup.resume.is_none()) {
                if let Err(e) = s.set_mode(mode).await {
                    tracing::warn!(target: "rho::agent::conversation", error = %e, "the Agent refused the mode");
                }
            }
            facts.shrink_to_fit();
            Ok((s, facts))
        }
        Err(e) if setup.resume.is_some() => {
            let note = format!(
                "the Agent session {} could not be continued ({e}); choose to start a new conversation",
                setup.resume.as_deref().unwrap_or_default()
            );
            Err(vec![
                ConversationEvent::NeedsChoice { note: note.clone() },
                ended("needs_choice", note),
            ])
        }
        Err(e) => Err(vec![ended("agent_unavailable", e.to_string())]),
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

/// Runs one turn to its end. `None`: ended; `Some(true)`: the transport was lost;
/// `Some(false)`: the sink is gone (stop driving).
async fn turn(
    s: &mut AgentSession,
    message_id: String,
    sink: &Sink,
    rx: &mut mpsc::UnboundedReceiver<Control>,
) -> Option<bool> {
    let mut t = Turn {
        message_id,
        sent_text: 0,
        due: None,
        sent_steps: HashMap::new(),
        pending: HashMap::new(),
        asked: 0,
        waiters: Vec::new(),
    };
    loop {
        let due = t.due;
        let wake = tokio::select! {
            e = s.next() => Wake::Event(e),
            c = rx.recv() => Wake::Control(c),
            _ = tokio::time::sleep_until(due.unwrap_or_else(Instant::now)), if due.is_some() => Wake::Flush,
        };
        let mut facts = Vec::new();
        let mut end = None;
        let mut answered = None;
        match wake {
            Wake::Flush => text(s, &mut t, &mut facts),
            Wake::Event(TurnEvent::Changed) => {
                let waiting = s.message.text.len() - t.sent_text;
                if waiting >= TEXT_BYTES {
                    text(s, &mut t, &mut facts);
                } else if waiting > 0 && t.due.is_none() {
                    t.due = Some(Instant::now() + TEXT_EVERY);
                }
                steps(s, &mut t, &mut facts);
            }
            Wake::Event(TurnEvent::Permission(p)) => {
                text(s, &mut t, &mut facts);
                steps(s, &mut t, &mut facts);
                t.asked += 1;
                let request_id = format!("{}-{}", t.message_id, t.asked);
                facts.push(ConversationEvent::Asked {
                    message_id: t.message_id.clone(),
                    permission: Permission {
                        request_id: request_id.clone(),
                        step_id: p.tool_call_id.clone(),
                        title: p.title.clone().unwrap_or_default(),
                        options: p
                            .options
                            .iter()
                            .map(|(id, kind, name)| (id.clone(), name.clone(), kind.clone()))
                            .collect(),
                        outcome: None,
                        chosen_by: None,
                        asked_ms: rho_plumbing::time::now_ms(),
                    },
                });
                t.pending.insert(request_id, p);
            }
            Wake::Event(ended) => {
                text(s, &mut t, &mut facts);
                steps(s, &mut t, &mut facts);
                let m = &s.message;
                let cut = Cut {
                    text_bytes: m.cut_text_bytes,
                    steps: m.cut_steps,
                    outputs: m.steps.iter().filter(|s| s.output_dropped).count() as u64,
                };
                let (stop_reason, error, lost) = match ended {
                    TurnEvent::Finished(r) => (Some(r), None, false),
                    TurnEvent::Failed(e) => (
                        Some("error".to_string()),
                        Some(("agent_error".to_string(), e.to_string())),
                        false,
                    ),
                    _ => (None, None, true),
                };
                facts.push(if lost {
                    ConversationEvent::Unknown {
                        message_id: t.message_id.clone(),
                        reason: format!(
                            "the Agent's adapter closed its connection mid-turn: {}",
                            s.adapter().stderr_tail()
                        ),
                    }
                } else {
                    ConversationEvent::Ended {
                        message_id: t.message_id.clone(),
                        stop_reason,
                        usage: m.usage.clone(),
                        error,
                        cut,
                    }
                });
                end = Some(lost);
            }
            Wake::Control(None) => return Some(false),
            Wake::Control(Some(c)) => answered = control(s, &mut t, c, &mut facts),
        }
        if !facts.is_empty() && !sink(facts).await {
            return Some(false);
        }
        // An answer is confirmed once its fact is journaled, so a read after it shows it.
        if let Some((done, answer)) = answered {
            let _ = done.send(answer);
        }
        if let Some(lost) = end {
            for w in t.waiters.drain(..) {
                let _ = w.send(());
            }
            return lost.then_some(true);
        }
    }
}

/// A permission answer to confirm once its fact is journaled.
type Answered = Option<(
    oneshot::Sender<Result<(), ActorError>>,
    Result<(), ActorError>,
)>;

fn control(
    s: &mut AgentSession,
    t: &mut Turn,
    c: Control,
    facts: &mut Vec<ConversationEvent>,
) -> Answered {
    match c {
        Control::Prompt { .. } => None,
        Control::Answer {
            request_id,
            option_id,
            by,
            done,
        } => {
            let answer = match t.pending.get(&request_id) {
                None => Err(ActorError::conflict(
                    "that permission request is no longer pending",
                )),
                Some(p) if s.answer(p, &option_id) => {
                    t.pending.remove(&request_id);
                    facts.push(ConversationEvent::Answered {
                        message_id: t.message_id.clone(),
                        request_id,
                        option_id: Some(option_id),
                        by,
                    });
                    Ok(())
                }
                Some(_) => Err(ActorError::invalid(
                    "optionId",
                    "the Agent did not offer that option",
                )),
            };
            Some((done, answer))
        }
        Control::Stop { done } => {
            if t.waiters.is_empty() {
                facts.push(ConversationEvent::StopRequested {
                    message_id: t.message_id.clone(),
                });
                s.cancel();
                for (request_id, _) in t.pending.drain() {
                    facts.push(ConversationEvent::Answered {
                        message_id: t.message_id.clone(),
                        request_id,
                        option_id: None,
                        by: "stop".into(),
                    });
                }
            }
            t.waiters.push(done);
            None
        }
    }
}

/// The text streamed since the last batch, as one fact.
fn text(s: &AgentSession, t: &mut Turn, facts: &mut Vec<ConversationEvent>) {
    t.due = None;
    let all = &s.message.text;
    if all.len() > t.sent_text {
        facts.push(ConversationEvent::Text {
            message_id: t.message_id.clone(),
            text: all[t.sent_text..].to_string(),
        });
        t.sent_text = all.len();
    }
}

/// Every step that changed since it was last journaled (text before it is flushed first).
fn steps(s: &AgentSession, t: &mut Turn, facts: &mut Vec<ConversationEvent>) {
    for step in &s.message.steps {
        if t.sent_steps.get(&step.id) != Some(step) {
            if !t.sent_steps.contains_key(&step.id) {
                text(s, t, facts);
            }
            t.sent_steps.insert(step.id.clone(), step.clone());
            facts.push(ConversationEvent::Step {
                message_id: t.message_id.clone(),
                step: step.clone(),
            });
        }
    }
}

/// What the service gives every conversation: where the runtimes are, the default backend
/// (`--agent-backend` / `RHO_AGENT_BACKEND`), what a message keeps and how long a stop waits.
#[derive(Debug, Clone)]
pub struct ServiceSetup {
    pub runtimes: Runtimes,
    pub default_backend: Backend,
    pub limits: RecordLimits,
    pub stop_bound: Duration,
}
