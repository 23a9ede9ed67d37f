//! The types of one conversation's record: its info, each message's write-once original, its
//! state and parts, permissions, kept files and decisions, and the commands the record takes
//! (the record itself and how it folds its events: `entity.rs`).

use super::events::ConversationEvent;
use super::launch::Backend;
use super::ledger::{CallRecord, CardImage, Spend};
use super::record::{ToolStep, Usage};
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
