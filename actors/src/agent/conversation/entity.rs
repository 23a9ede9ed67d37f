//! One conversation's journaled record (one child actor per conversation, rebuilt by replay):
//! its messages' write-once originals and every fact learned while the Agent answered them.
//!
//! Nothing here starts or talks to an adapter; the driver (`driver.rs`) learns facts and the
//! project actor journals them through [`ConversationCommand::Learn`].

pub use super::events::ConversationEvent;
use super::launch::Backend;
use super::record::{ToolStep, Usage};
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// The conversation itself, fixed at its start but for the Agent session and the note.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Info {
    pub conversation_id: Uuid,
    pub backend: Backend,
    /// First line of the first message, at most 80 characters.
    pub title: String,
    pub started_ms: i64,
    pub started_by: String,
    /// `session/set_mode` asked at the start, if any.
    pub mode: Option<String>,
    pub agent_session_id: Option<String>,
    /// Why the conversation needs a choice (set with `needs_choice`).
    pub note: Option<String>,
    pub needs_choice: bool,
    /// The adapter's process group while it ran (killed at recovery if it outlived Rho).
    pub pgid: Option<i32>,
}

/// A message as the person sent it: journaled once, before the Agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Original {
    pub message_id: String,
    pub change_id: String,
    pub text: String,
    pub contexts: Vec<String>,
    pub backend: Backend,
    pub sent_ms: i64,
    pub sent_by: String,
}

/// Where a message stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum MessageState {
    Running,
    Ended,
    /// The transport was lost (adapter died, Rho killed): the Agent's outcome is not known.
    Unknown,
}

/// One part of an answer, in the order the Agent produced it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Part {
    Text(String),
    /// A tool step, by its id in [`Message::steps`].
    Step(String),
}

/// A permission the Agent asked for, with only the options it offered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Permission {
    pub request_id: String,
    pub step_id: Option<String>,
    pub title: String,
    /// `(optionId, name, kind)` as offered.
    pub options: Vec<(String, String, String)>,
    /// `None` while pending; `Some(None)` cancelled; `Some(Some(option))` chosen.
    pub outcome: Option<Option<String>>,
    pub chosen_by: Option<String>,
    pub asked_ms: i64,
}

/// What limits dropped from a message, counted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cut {
    pub text_bytes: u64,
    pub steps: u64,
    pub outputs: u64,
}

/// One message and its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub original: Original,
    pub state: MessageState,
    pub parts: Vec<Part>,
    pub steps: Vec<ToolStep>,
    pub stop_reason: Option<String>,
    pub usage: Option<Usage>,
    /// `(code, message)` when the Agent reported an error or the transport was lost.
    pub error: Option<(String, String)>,
    pub ended_ms: Option<i64>,
    pub permissions: Vec<Permission>,
    pub stopping: bool,
    pub cut: Cut,
}

/// What a start or send answers (the rest is read from the state).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConvReply {
    pub conversation_id: Uuid,
    pub message_id: String,
}

/// Commands of a conversation.
#[derive(Debug, Clone)]
pub enum ConversationCommand {
    Start {
        info: Box<Info>,
        original: Original,
    },
    Send {
        original: Original,
    },
    /// Facts the driver learned (journaled only those that still apply).
    Learn {
        events: Vec<ConversationEvent>,
    },
}

/// One conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationEntity {
    pub info: Option<Info>,
    pub messages: Vec<Message>,
    identities: IdentityTable<ConvReply>,
}

impl ConversationEntity {
    /// The message `id`, if this conversation holds it.
    pub fn message(&self, id: &str) -> Option<&Message> {
        self.messages.iter().find(|m| m.original.message_id == id)
    }

    fn message_mut(&mut self, id: &str) -> Option<&mut Message> {
        self.messages
            .iter_mut()
            .find(|m| m.original.message_id == id)
    }

    /// The running message, if any.
    pub fn running(&self) -> Option<&Message> {
        self.messages
            .iter()
            .find(|m| m.state == MessageState::Running)
    }

    /// `idle`, `running`, `waiting` (a permission is pending) or `needs-choice`.
    pub fn state(&self) -> &'static str {
        match self.running() {
            Some(m) if m.permissions.iter().any(|p| p.outcome.is_none()) => "waiting",
            Some(_) => "running",
            None if self.info.as_ref().is_some_and(|i| i.needs_choice) => "needs-choice",
            None => "idle",
        }
    }

    /// Whether `event` still applies (facts about an ended message are dropped).
    fn applies(&self, event: &ConversationEvent) -> bool {
        let live = |id: &str| {
            self.message(id)
                .is_some_and(|m| m.state == MessageState::Running)
        };
        match event {
            ConversationEvent::Started { .. } | ConversationEvent::Sent { .. } => false,
            ConversationEvent::Session { .. } | ConversationEvent::NeedsChoice { .. } => {
                self.info.is_some()
            }
            ConversationEvent::Text { message_id, .. }
            | ConversationEvent::Step { message_id, .. }
            | ConversationEvent::Asked { message_id, .. }
            | ConversationEvent::StopRequested { message_id }
            | ConversationEvent::Ended { message_id, .. }
            | ConversationEvent::Unknown { message_id, .. } => live(message_id),
            ConversationEvent::Answered {
                message_id,
                request_id,
                ..
            } => {
                live(message_id)
                    && self.message(message_id).is_some_and(|m| {
                        m.permissions
                            .iter()
                            .any(|p| p.request_id == *request_id && p.outcome.is_none())
                    })
            }
        }
    }
}

fn new_message(original: &Original) -> Message {
    Message {
        original: original.clone(),
        state: MessageState::Running,
        parts: Vec::new(),
        steps: Vec::new(),
        stop_reason: None,
        usage: None,
        error: None,
        ended_ms: None,
        permissions: Vec::new(),
        stopping: false,
        cut: Cut::default(),
    }
}

/// Settles every permission still pending as cancelled.
fn settle(m: &mut Message) {
    for p in m.permissions.iter_mut().filter(|p| p.outcome.is_none()) {
        p.outcome = Some(None);
    }
}

impl Entity for ConversationEntity {
    const KIND: &'static str = "conversation";
    type Event = ConversationEvent;
    type Command = ConversationCommand;
    type Reply = ConvReply;

    fn apply(&mut self, event: &ConversationEvent, meta: &EventMeta) {
        match event {
            ConversationEvent::Started { info } => self.info = Some(info.clone()),
            ConversationEvent::Sent { original } => self.messages.push(new_message(original)),
            ConversationEvent::Session {
                agent_session_id,
                pgid,
            } => {
                if let Some(info) = self.info.as_mut() {
                    info.agent_session_id = Some(agent_session_id.clone());
                    info.pgid = *pgid;
                    info.needs_choice = false;
                    info.note = None;
                }
            }
            ConversationEvent::NeedsChoice { note } => {
                if let Some(info) = self.info.as_mut() {
                    info.needs_choice = true;
                    info.note = Some(note.clone());
                }
            }
            ConversationEvent::Text { message_id, text } => {
                if let Some(m) = self.message_mut(message_id) {
                    match m.parts.last_mut() {
                        Some(Part::Text(t)) => t.push_str(text),
                        _ => m.parts.push(Part::Text(text.clone())),
                    }
                }
            }
            ConversationEvent::Step { message_id, step } => {
                if let Some(m) = self.message_mut(message_id) {
                    match m.steps.iter_mut().find(|s| s.id == step.id) {
                        Some(s) => *s = step.clone(),
                        None => {
                            m.parts.push(Part::Step(step.id.clone()));
                            m.steps.push(step.clone());
                        }
                    }
                }
            }
            ConversationEvent::Asked {
                message_id,
                permission,
            } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.permissions.push(permission.clone());
                }
            }
            ConversationEvent::Answered {
                message_id,
                request_id,
                option_id,
                by,
            } => {
                if let Some(p) = self.message_mut(message_id).and_then(|m| {
                    m.permissions
                        .iter_mut()
                        .find(|p| p.request_id == *request_id)
                }) {
                    p.outcome = Some(option_id.clone());
                    p.chosen_by = Some(by.clone());
                }
            }
            ConversationEvent::StopRequested { message_id } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.stopping = true;
                }
            }
            ConversationEvent::Ended {
                message_id,
                stop_reason,
                usage,
                error,
                cut,
            } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.state = MessageState::Ended;
                    m.stop_reason = stop_reason.clone();
                    m.usage = usage.clone();
                    m.error = error.clone();
                    m.cut = cut.clone();
                    m.ended_ms = Some(meta.time_ms);
                    m.stopping = false;
                    settle(m);
                }
            }
            ConversationEvent::Unknown { message_id, reason } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.state = MessageState::Unknown;
                    m.error = Some(("unknown".into(), reason.clone()));
                    m.ended_ms = Some(meta.time_ms);
                    m.stopping = false;
                    settle(m);
                }
            }
        }
    }

    fn decide(
        &self,
        command: &ConversationCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<ConversationEvent, ConvReply>, ActorError> {
        match command {
            ConversationCommand::Start { info, original } => {
                if self.info.is_some() {
                    return Err(ActorError::conflict("that conversation exists"));
                }
                Ok(Decision {
                    events: vec![
                        ConversationEvent::Started {
                            info: (**info).clone(),
                        },
                        ConversationEvent::Sent {
                            original: original.clone(),
                        },
                    ],
                    reply: ConvReply {
                        conversation_id: info.conversation_id,
                        message_id: original.message_id.clone(),
                    },
                })
            }
            ConversationCommand::Send { original } => {
                let Some(info) = &self.info else {
                    return Err(ActorError::NotFound {
                        what: "conversation".into(),
                    });
                };
                if self.running().is_some() {
                    return Err(ActorError::conflict("a message is running"));
                }
                if info.needs_choice {
                    return Err(ActorError::conflict(format!(
                        "the conversation needs a choice: {}",
                        info.note.as_deref().unwrap_or_default()
                    )));
                }
                Ok(Decision {
                    events: vec![ConversationEvent::Sent {
                        original: original.clone(),
                    }],
                    reply: ConvReply {
                        conversation_id: info.conversation_id,
                        message_id: original.message_id.clone(),
                    },
                })
            }
            ConversationCommand::Learn { events } => {
                let mut after = self.clone();
                let mut kept = Vec::new();
                let meta = EventMeta {
                    seq: 0,
                    entity_seq: 0,
                    time_ms: rho_plumbing::time::now_ms(),
                    principal: String::new(),
                };
                for e in events {
                    if after.applies(e) {
                        after.apply(e, &meta);
                        kept.push(e.clone());
                    }
                }
                Ok(Decision {
                    events: kept,
                    reply: ConvReply {
                        conversation_id: self
                            .info
                            .as_ref()
                            .map(|i| i.conversation_id)
                            .unwrap_or_default(),
                        message_id: String::new(),
                    },
                })
            }
        }
    }

    fn identities(&self) -> &IdentityTable<ConvReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<ConvReply> {
        &mut self.identities
    }

    /// A message running at a crash: its outcome is unknown and it is never sent again.
    fn reconcile(&self, _now_ms: i64) -> Vec<ConversationEvent> {
        self.running()
            .map(|m| ConversationEvent::Unknown {
                message_id: m.original.message_id.clone(),
                reason: "Rho stopped while the Agent answered; its outcome is unknown and the message is not sent again".into(),
            })
            .into_iter()
            .collect()
    }
}
