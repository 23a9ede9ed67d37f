//! How one conversation's record folds each of its events (`Entity::apply` of
//! [`ConversationEntity`]), replayed the same way after a restart.

use super::entity::{ConversationEntity, ConversationEvent};
use super::ledger::Spend;
use super::model::{Cut, Message, MessageState, Original, Part};
use crate::entity::EventMeta;

impl ConversationEntity {
    /// Folds one event into the record.
    pub(super) fn fold(&mut self, event: &ConversationEvent, meta: &EventMeta) {
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
