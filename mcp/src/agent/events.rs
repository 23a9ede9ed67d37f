//! What a native session reports to its driver, in order: streamed text, retries, tool steps
//! with their progress and results, questions for the person (forms and sampling), spend, and
//! each turn's end. `message` is the turn's number in the session (1 for the first prompt).

use serde_json::Value;

use crate::client::policy::Question;
use crate::client::render::ImageAsset;
use crate::model::Retry;

use super::ledger::Spend;

/// Where a tool comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSource {
    /// One of the project's granted operations.
    Project {
        /// The operation (`document.edit`).
        operation: String,
    },
    /// A configured MCP server's tool.
    Mcp {
        /// The server identity.
        server: String,
        /// The server's own tool name.
        tool: String,
    },
    /// A name the model made up (answered with an error, never called).
    Unknown,
}

/// A tool step as the card shows it when it starts.
#[derive(Debug, Clone, PartialEq)]
pub struct StepStart {
    /// The model's call id.
    pub id: String,
    /// The exported name the model called.
    pub name: String,
    /// A readable title (the tool's `title`, else its name in words).
    pub title: String,
    /// Where it comes from.
    pub source: ToolSource,
    /// The raw input.
    pub input: Value,
}

/// A finished step.
#[derive(Debug, Clone, PartialEq)]
pub struct StepEnd {
    /// The model's call id.
    pub id: String,
    /// What the model reads (images as descriptors, never base64).
    pub text: String,
    /// The tool failed (the model is told so).
    pub is_error: bool,
    /// The call was cancelled with the turn.
    pub cancelled: bool,
    /// The card's image (never sent to the model).
    pub image: Option<ImageAsset>,
    /// How long the call took.
    pub duration_ms: u64,
}

/// A form a server asks the person to fill in (elicitation).
#[derive(Debug, Clone, PartialEq)]
pub struct FormAsk {
    /// Answer it with this id.
    pub id: u64,
    /// The tool call it interrupts, when one is running.
    pub call: Option<String>,
    /// The form, titled with the asking server.
    pub question: Question,
}

/// A server asks to spend the person's model (sampling gate two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingQuestion {
    /// Answer it with this id.
    pub id: u64,
    /// The tool call it interrupts, when one is running.
    pub call: Option<String>,
    /// The asking server.
    pub server: String,
    /// How many messages it sends.
    pub messages: usize,
    /// The token ceiling it asked for (shown, not enforced).
    pub max_tokens: u32,
    /// The model that would answer.
    pub model: String,
}

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnEnd {
    /// `end_turn`, `cancelled`, `max_tokens`, `refusal`, `max_steps`, `error`, or the provider's.
    pub stop: String,
    /// The reason, for `error` (the provider's message) and `max_steps`.
    pub error: Option<String>,
}

/// One report from the session.
#[derive(Debug, Clone, PartialEq)]
pub enum AgentEvent {
    /// A piece of the model's answer.
    Text {
        /// The turn.
        message: u64,
        /// The text.
        text: String,
    },
    /// A model request failed and is sent again after a wait.
    Retrying {
        /// The turn (`None` for a sampling request outside one).
        message: Option<u64>,
        /// The attempt.
        retry: Retry,
    },
    /// A tool call starts.
    ToolStarted {
        /// The turn.
        message: u64,
        /// The step.
        step: StepStart,
    },
    /// A running call reports progress.
    ToolProgress {
        /// The turn.
        message: u64,
        /// The call id.
        id: String,
        /// Progress so far.
        progress: f64,
        /// Total, when the server gave one.
        total: Option<f64>,
        /// The server's message.
        text: Option<String>,
    },
    /// A tool call ended.
    ToolFinished {
        /// The turn.
        message: u64,
        /// The step's end.
        step: StepEnd,
    },
    /// A server asks the person to fill in a form; answer with `answer_form`.
    Form {
        /// The turn, if one is running.
        message: Option<u64>,
        /// The form.
        ask: FormAsk,
    },
    /// A server asks to spend the model; answer with `answer_sampling`.
    Sampling {
        /// The turn, if one is running.
        message: Option<u64>,
        /// The question.
        ask: SamplingQuestion,
    },
    /// Tokens were spent.
    Spent {
        /// The turn, if one is running.
        message: Option<u64>,
        /// The entry.
        spend: Spend,
    },
    /// The turn ended; the session takes the next prompt.
    Finished {
        /// The turn.
        message: u64,
        /// How.
        end: TurnEnd,
    },
}
