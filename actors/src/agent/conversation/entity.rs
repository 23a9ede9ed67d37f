//! One conversation's journaled record (one child actor per conversation, rebuilt by replay):
//! its messages' write-once originals and every fact learned while the Agent answered them.
//!
//! Nothing here starts or talks to an adapter; the driver (`driver.rs`) learns facts and the
//! project actor journals them through [`ConversationCommand::Learn`]. The record's types are
//! in `model.rs`, how it folds each event in `fold.rs`.

pub use super::events::ConversationEvent;
use super::ledger::Spend;
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};

pub use super::model::{
    ConvReply, ConversationCommand, Cut, DecisionRecord, Info, KeptFile, Message, MessageState,
    Original, Part, Permission,
};

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

    pub(super) fn message_mut(&mut self, id: &str) -> Option<&mut Message> {
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
    pub(super) fn applies(&self, event: &ConversationEvent) -> bool {
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
        self.fold(event, meta);
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
