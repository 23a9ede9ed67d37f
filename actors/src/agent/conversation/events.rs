//! The events of a conversation's journal (one child actor per conversation): variants are
//! only ever appended.

use super::entity::{Cut, DecisionRecord, Info, KeptFile, Original, Permission};
use super::ledger::{CallRecord, CardImage, SpendRecord};
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
    /// The `--limits` keys of the bounds that cut something of a message (before its end).
    Cuts {
        message_id: String,
        limits: Vec<String>,
    },
    /// The files a message kept when it ended: each version captured (or its digest), and
    /// `(path, why)` for each one left out (a limit's key, or what failed).
    Kept {
        message_id: String,
        files: Vec<KeptFile>,
        omitted: Vec<(String, String)>,
    },
    /// A decision on an ended message (`conversation.decide`).
    Decided {
        message_id: String,
        decision: DecisionRecord,
    },
    /// The person chose to continue in a fresh Agent session, the history given as a summary.
    Fresh {
        note: String,
    },
    /// The oldest messages went to keep `limit`.
    Dropped {
        message_ids: Vec<String>,
        limit: String,
    },
    /// The conversation went to keep `limit` (its identity stays: a retry answers `expired`).
    Removed {
        limit: String,
    },
    /// Tokens one model request of Rho's own agent spent (`message_id`: the turn it belongs
    /// to; `None` for a server's sampling request outside any turn).
    Spent {
        message_id: Option<String>,
        spend: SpendRecord,
    },
    /// A model request failed and is sent again after a wait (the line the message shows).
    Retried {
        message_id: String,
        note: String,
    },
    /// A tool call of Rho's own agent ended: its card's details.
    Called {
        message_id: String,
        call: CallRecord,
    },
    /// The process groups of the MCP servers Rho's own agent started for this conversation,
    /// each with its command line (empty once they closed); recovery kills those that outlived
    /// Rho.
    Servers {
        groups: Vec<(i32, String)>,
    },
    /// A call card's image was stored (content-addressed) for the panel (decision 0813).
    Imaged {
        message_id: String,
        image: CardImage,
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
            ConversationEvent::Cuts { .. } => "conversation.cuts",
            ConversationEvent::Kept { .. } => "conversation.kept",
            ConversationEvent::Decided { .. } => "conversation.decided",
            ConversationEvent::Fresh { .. } => "conversation.fresh",
            ConversationEvent::Dropped { .. } => "conversation.dropped",
            ConversationEvent::Removed { .. } => "conversation.removed",
            ConversationEvent::Spent { .. } => "conversation.spent",
            ConversationEvent::Retried { .. } => "conversation.retried",
            ConversationEvent::Called { .. } => "conversation.called",
            ConversationEvent::Servers { .. } => "conversation.servers",
            ConversationEvent::Imaged { .. } => "conversation.imaged",
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
            ConversationEvent::Kept {
                message_id,
                files,
                omitted,
            } => format!(
                "message {message_id} kept {} file(s), {} left out",
                files.len(),
                omitted.len()
            ),
            ConversationEvent::Decided {
                message_id,
                decision,
            } => format!(
                "message {message_id}: {} by {} ({})",
                decision.decision, decision.by, decision.decision_id
            ),
            ConversationEvent::Dropped { message_ids, limit } => {
                format!("{} message(s) removed to keep {limit}", message_ids.len())
            }
            ConversationEvent::Removed { limit } => format!("removed to keep {limit}"),
            ConversationEvent::Spent { message_id, spend } => format!(
                "{} spent {} in, {} out ({}){}",
                spend.model,
                spend.input_tokens,
                spend.output_tokens,
                spend.purpose,
                message_id
                    .as_deref()
                    .map(|m| format!(" for message {m}"))
                    .unwrap_or_default()
            ),
            ConversationEvent::Called { message_id, call } => format!(
                "message {message_id}: call {} {} ({} ms)",
                call.id, call.name, call.duration_ms
            ),
            ConversationEvent::Imaged { message_id, image } => format!(
                "message {message_id}: call {} image {} ({} bytes, sha256 {})",
                image.step_id, image.mime_type, image.bytes, image.sha256
            ),
            other => other.kind().to_string(),
        }
    }
}
