//! The events of a conversation's journal (one child actor per conversation): variants are
//! only ever appended.

use super::entity::{Cut, Info, Original, Permission};
use super::record::{ToolStep, Usage};
use crate::entity::EntityEvent;
use serde::{Deserialize, Serialize};

/// Events of a conversation. Variants are only ever appended.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConversationEvent {
    Started {
        info: Info,
    },
    Sent {
        original: Original,
    },
    Session {
        agent_session_id: String,
        pgid: Option<i32>,
    },
    Text {
        message_id: String,
        text: String,
    },
    Step {
        message_id: String,
        step: ToolStep,
    },
    Asked {
        message_id: String,
        permission: Permission,
    },
    Answered {
        message_id: String,
        request_id: String,
        option_id: Option<String>,
        by: String,
    },
    StopRequested {
        message_id: String,
    },
    Ended {
        message_id: String,
        stop_reason: Option<String>,
        usage: Option<Usage>,
        error: Option<(String, String)>,
        cut: Cut,
    },
    Unknown {
        message_id: String,
        reason: String,
    },
    NeedsChoice {
        note: String,
    },
}

impl EntityEvent for ConversationEvent {
    fn kind(&self) -> &'static str {
        match self {
            ConversationEvent::Started { .. } => "conversation.started",
            ConversationEvent::Sent { .. } => "conversation.sent",
            ConversationEvent::Session { .. } => "conversation.session",
            ConversationEvent::Text { .. } => "conversation.text",
            ConversationEvent::Step { .. } => "conversation.step",
            ConversationEvent::Asked { .. } => "conversation.asked",
            ConversationEvent::Answered { .. } => "conversation.answered",
            ConversationEvent::StopRequested { .. } => "conversation.stop-requested",
            ConversationEvent::Ended { .. } => "conversation.ended",
            ConversationEvent::Unknown { .. } => "conversation.unknown",
            ConversationEvent::NeedsChoice { .. } => "conversation.needs-choice",
        }
    }

    fn summary(&self) -> String {
        match self {
            ConversationEvent::Started { info } => format!(
                "conversation {} started by {} ({})",
                info.conversation_id,
                info.started_by,
                info.backend.name()
            ),
            ConversationEvent::Sent { original } => format!(
                "message {} sent by {} ({} bytes)",
                original.message_id,
                original.sent_by,
                original.text.len()
            ),
            ConversationEvent::Text { message_id, text } => {
                format!("message {message_id}: {} bytes of text", text.len())
            }
            ConversationEvent::Step { message_id, step } => {
                format!("message {message_id}: step {} {}", step.id, step.status)
            }
            ConversationEvent::Ended {
                message_id,
                stop_reason,
                ..
            } => format!("message {message_id} ended ({stop_reason:?})"),
            ConversationEvent::Unknown { message_id, reason } => {
                format!("message {message_id} unknown: {reason}")
            }
            other => other.kind().to_string(),
        }
    }
}
