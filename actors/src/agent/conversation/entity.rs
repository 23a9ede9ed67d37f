//! One conversation's journaled record (one child actor per conversation, rebuilt by replay):
//! its messages' write-once originals and every fact learned while the Agent answered them.
//!
//! Nothing here starts or talks to an adapter; the driver (`driver.rs`) learns facts and the
//! project actor journals them through [`ConversationCommand::Learn`].

pub use super::events::ConversationEvent;
use super::launch::Backend;
use super::ledger::{CallRecord, CardImage, Spend};
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

/// One file version a message kept when it ended (an explicit file location of its steps, or
/// a file that changed while it ran).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeptFile {
    /// Project-relative path.
    pub path: String,
    /// SHA-256 (hex) of the bytes kept.
    pub digest: String,
    pub bytes: u64,
    /// The version captured into Files' immutable store (`None` when Files is not selected).
    pub resource: Option<(Uuid, u64)>,
}

/// A decision on an ended message (`conversation.decide`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DecisionRecord {
    pub decision_id: String,
    pub change_id: String,
    /// `accepted` or `needs-changes`.
    pub decision: String,
    pub note: Option<String>,
    pub at_ms: i64,
    pub by: String,
    /// The decision this one supersedes (the message's newest before it).
    pub supersedes: Option<String>,
    /// The exact file versions the message kept, as it kept them.
    pub files: Vec<KeptFile>,
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
    /// The `--limits` keys of the bounds that cut something of it.
    pub cut_by: Vec<String>,
    /// The file versions it kept when it ended, and `(path, why)` of those left out.
    pub kept: Vec<KeptFile>,
    pub kept_omitted: Vec<(String, String)>,
    /// Every decision on it, oldest first (a later one names the one it supersedes).
    pub decisions: Vec<DecisionRecord>,
    /// Rho's own agent: tokens spent per purpose, the retries announced, the tool calls' cards.
    pub spend: Spend,
    pub retries: Vec<String>,
    pub calls: Vec<CallRecord>,
    /// Its call cards' stored images (state format 12, decision 0813).
    pub images: Vec<CardImage>,
}

/// What a start, send or decide answers (the rest is read from the state). Journaled with the
/// identity, so its shape never changes: `message_id` is the message a start or send made, or
/// the decision a decide made.
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
        /// `conversations.maxMessages`: the oldest messages go to make room.
        max_messages: u64,
        /// Continue a conversation that needs a choice in a fresh Agent session.
        fresh: bool,
    },
    /// Facts the driver learned (journaled only those that still apply).
    Learn {
        events: Vec<ConversationEvent>,
    },
    /// `conversation.decide` (the edge checked the decision's words and note).
    Decide {
        message_id: String,
        decision: DecisionRecord,
    },
    /// Remove the conversation to keep `limit` (refused while a message runs).
    Remove {
        limit: String,
    },
}

/// One conversation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConversationEntity {
    pub info: Option<Info>,
    pub messages: Vec<Message>,
    identities: IdentityTable<ConvReply>,
    /// Set when the conversation went to keep a limit (its key).
    pub removed: Option<String>,
    /// Messages that went to keep a limit: how many, and the limit's key.
    pub dropped: u64,
    pub dropped_by: Option<String>,
    /// Tokens Rho's own agent spent in this conversation, per purpose.
    pub spend: Spend,
    /// Rho's own agent: its MCP servers' process groups and command lines while they run.
    pub servers: Vec<(i32, String)>,
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

    /// `expired` when the conversation went to keep a limit (which it names).
    pub fn check_kept(&self) -> Result<(), ActorError> {
        match &self.removed {
            Some(limit) => Err(ActorError::Expired {
                reason: format!("the conversation was removed to keep {limit}"),
            }),
            None => Ok(()),
        }
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
            ConversationEvent::Started { .. }
            | ConversationEvent::Sent { .. }
            | ConversationEvent::Decided { .. }
            | ConversationEvent::Fresh { .. }
            | ConversationEvent::Dropped { .. }
            | ConversationEvent::Removed { .. } => false,
            ConversationEvent::Session { .. } | ConversationEvent::NeedsChoice { .. } => {
                self.info.is_some()
            }
            ConversationEvent::Text { message_id, .. }
            | ConversationEvent::Step { message_id, .. }
            | ConversationEvent::Asked { message_id, .. }
            | ConversationEvent::StopRequested { message_id }
            | ConversationEvent::Ended { message_id, .. }
            | ConversationEvent::Cuts { message_id, .. }
            | ConversationEvent::Kept { message_id, .. }
            | ConversationEvent::Unknown { message_id, .. }
            | ConversationEvent::Retried { message_id, .. }
            | ConversationEvent::Called { message_id, .. }
            | ConversationEvent::Imaged { message_id, .. } => live(message_id),
            // Spend is journaled whenever it happened (a sampling request may outlive its turn).
            ConversationEvent::Spent { .. } | ConversationEvent::Servers { .. } => {
                self.info.is_some()
            }
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
        cut_by: Vec::new(),
        kept: Vec::new(),
        kept_omitted: Vec::new(),
        decisions: Vec::new(),
        spend: Spend::new(),
        retries: Vec::new(),
        calls: Vec::new(),
        images: Vec::new(),
    }
}

/// Settles every permission still pending as cancelled.
fn settle(m: &mut Message) {
    for p in m.permissions.iter_mut().filter(|p| p.outcome.is_none()) {
        p.outcome = Some(None);
    }
}

impl ConversationEntity {
    /// `conversation.decide`: on an ended message, naming the newest decision it supersedes.
    fn decide_on(
        &self,
        message_id: &str,
        decision: &DecisionRecord,
    ) -> Result<Decision<ConversationEvent, ConvReply>, ActorError> {
        let Some(info) = &self.info else {
            return Err(ActorError::NotFound {
                what: "conversation".into(),
            });
        };
        self.check_kept()?;
        let Some(m) = self.message(message_id) else {
            return Err(ActorError::NotFound {
                what: "message".into(),
            });
        };
        if m.state != MessageState::Ended {
            return Err(ActorError::conflict(
                "decisions are on finished messages; this one has not ended",
            ));
        }
        let newest = m.decisions.last().map(|d| d.decision_id.as_str());
        match (&decision.supersedes, newest) {
            (None, None) => {}
            (None, Some(d)) => {
                return Err(ActorError::conflict(format!(
                    "the message has decision {d}; a later decision names it in supersedes"
                )))
            }
            (Some(s), _) if !m.decisions.iter().any(|d| d.decision_id == *s) => {
                return Err(ActorError::NotFound {
                    what: "decision to supersede".into(),
                })
            }
            (Some(s), Some(d)) if s != d => {
                return Err(ActorError::conflict(format!(
                    "decision {s} is already superseded; the newest is {d}"
                )))
            }
            (Some(_), _) => {}
        }
        let mut decision = decision.clone();
        decision.files = m.kept.clone();
        Ok(Decision {
            reply: ConvReply {
                conversation_id: info.conversation_id,
                message_id: decision.decision_id.clone(),
            },
            events: vec![ConversationEvent::Decided {
                message_id: message_id.to_string(),
                decision,
            }],
        })
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
            ConversationEvent::Cuts { message_id, limits } => {
                if let Some(m) = self.message_mut(message_id) {
                    for l in limits {
                        if !m.cut_by.contains(l) {
                            m.cut_by.push(l.clone());
                        }
                    }
                }
            }
            ConversationEvent::Kept {
                message_id,
                files,
                omitted,
            } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.kept = files.clone();
                    m.kept_omitted = omitted.clone();
                }
            }
            ConversationEvent::Decided {
                message_id,
                decision,
            } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.decisions.push(decision.clone());
                }
            }
            ConversationEvent::Fresh { note } => {
                if let Some(info) = self.info.as_mut() {
                    info.agent_session_id = None;
                    info.pgid = None;
                    info.needs_choice = false;
                    info.note = Some(note.clone());
                }
            }
            ConversationEvent::Dropped { message_ids, limit } => {
                let before = self.messages.len();
                self.messages
                    .retain(|m| !message_ids.contains(&m.original.message_id));
                self.dropped += (before - self.messages.len()) as u64;
                self.dropped_by = Some(limit.clone());
            }
            ConversationEvent::Removed { limit } => {
                self.messages.clear();
                self.removed = Some(limit.clone());
            }
            ConversationEvent::Spent { message_id, spend } => {
                super::ledger::add(&mut self.spend, spend);
                if let Some(m) = message_id.as_deref().and_then(|id| self.message_mut(id)) {
                    super::ledger::add(&mut m.spend, spend);
                }
            }
            ConversationEvent::Servers { groups } => self.servers = groups.clone(),
            ConversationEvent::Retried { message_id, note } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.retries.push(note.clone());
                }
            }
            ConversationEvent::Called { message_id, call } => {
                if let Some(m) = self.message_mut(message_id) {
                    match m.calls.iter_mut().find(|c| c.id == call.id) {
                        Some(c) => *c = call.clone(),
                        None => m.calls.push(call.clone()),
                    }
                }
            }
            ConversationEvent::Imaged { message_id, image } => {
                if let Some(m) = self.message_mut(message_id) {
                    m.images.retain(|i| i.step_id != image.step_id);
                    m.images.push(image.clone());
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
                self.check_kept()?;
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
            ConversationCommand::Send {
                original,
                max_messages,
                fresh,
            } => {
                let Some(info) = &self.info else {
                    return Err(ActorError::NotFound {
                        what: "conversation".into(),
                    });
                };
                self.check_kept()?;
                if self.running().is_some() {
                    return Err(ActorError::conflict("a message is running"));
                }
                if info.needs_choice && !fresh {
                    return Err(ActorError::conflict(format!(
                        "the conversation needs a choice: {} Send with freshSession true to continue in a fresh Agent session given a summary of this conversation, or start a new conversation",
                        info.note.as_deref().unwrap_or_default()
                    )));
                }
                if *fresh && !info.needs_choice {
                    return Err(ActorError::conflict(
                        "freshSession is only for a conversation whose Agent session could not be continued",
                    ));
                }
                let mut events = Vec::new();
                let max = usize::try_from((*max_messages).max(1)).unwrap_or(usize::MAX);
                if self.messages.len() >= max {
                    let message_ids = self.messages[..=self.messages.len() - max]
                        .iter()
                        .map(|m| m.original.message_id.clone())
                        .collect();
                    events.push(ConversationEvent::Dropped {
                        message_ids,
                        limit: "conversations.maxMessages".into(),
                    });
                }
                if *fresh {
                    events.push(ConversationEvent::Fresh {
                        note: format!(
                            "continued in a fresh Agent session with a summary of the earlier messages ({})",
                            info.note.as_deref().unwrap_or("the earlier session could not be continued")
                        ),
                    });
                }
                events.push(ConversationEvent::Sent {
                    original: original.clone(),
                });
                Ok(Decision {
                    events,
                    reply: ConvReply {
                        conversation_id: info.conversation_id,
                        message_id: original.message_id.clone(),
                    },
                })
            }
            ConversationCommand::Decide {
                message_id,
                decision,
            } => self.decide_on(message_id, decision),
            ConversationCommand::Remove { limit } => {
                if self.running().is_some() {
                    return Err(ActorError::conflict("a message is running"));
                }
                Ok(Decision {
                    events: vec![ConversationEvent::Removed {
                        limit: limit.clone(),
                    }],
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
