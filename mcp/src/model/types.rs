//! The provider-neutral shapes of a model request and of what a streamed answer yields.

use serde_json::Value;

/// One part of a user message.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Text.
    Text(String),
    /// An image the person attached (base64 exactly as its source encoded it).
    Image {
        /// MIME type.
        mime_type: String,
        /// Base64 data.
        data: String,
    },
}

/// A tool call the model made.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCall {
    /// The provider's call id (echoed back with the result).
    pub id: String,
    /// The tool's name as offered.
    pub name: String,
    /// The arguments: an object, or the raw text when the model sent something unparsable.
    pub arguments: Value,
}

/// A tool's result as the model reads it (text only: images are descriptors).
#[derive(Debug, Clone, PartialEq)]
pub struct ToolResult {
    /// The call it answers.
    pub call_id: String,
    /// What the model reads.
    pub text: String,
    /// The tool failed.
    pub is_error: bool,
}

/// One message of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// What the person sent (or a prompt's messages, or attachments).
    User(Vec<Part>),
    /// What the model answered: its text and the calls it made.
    Assistant {
        /// Text.
        text: String,
        /// Tool calls, in order.
        calls: Vec<ToolCall>,
    },
    /// The results of the previous assistant message's calls.
    Tool(Vec<ToolResult>),
}

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolDef {
    /// Name (`[A-Za-z0-9_-]{1,64}`).
    pub name: String,
    /// Description.
    pub description: String,
    /// Input JSON Schema.
    pub input_schema: Value,
}

/// One model request.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The system prompt.
    pub system: String,
    /// The transcript.
    pub messages: Vec<Message>,
    /// The tools offered (none for a one-shot completion).
    pub tools: Vec<ToolDef>,
    /// The output ceiling.
    pub max_tokens: u32,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StopReason {
    /// It finished its answer.
    EndTurn,
    /// It wants tool results.
    ToolUse,
    /// It hit the output ceiling.
    MaxTokens,
    /// It refused (a content filter).
    Refusal,
    /// Anything else, as the provider named it.
    Other(String),
}

impl StopReason {
    /// The stable spelling (`end_turn`, `tool_use`, `max_tokens`, `refusal`, or the provider's).
    pub fn as_str(&self) -> &str {
        match self {
            StopReason::EndTurn => "end_turn",
            StopReason::ToolUse => "tool_use",
            StopReason::MaxTokens => "max_tokens",
            StopReason::Refusal => "refusal",
            StopReason::Other(s) => s,
        }
    }
}

/// Tokens as the provider reported them for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

/// A retry the client is about to make (announced, never silent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Retry {
    /// 1 for the first retry.
    pub attempt: u32,
    /// The most retries this request may make.
    pub of: u32,
    /// How long it waits first.
    pub wait_ms: u64,
    /// What failed.
    pub reason: String,
}

/// What a streamed answer yields, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A piece of the answer's text.
    Text(String),
    /// A complete tool call.
    ToolCall(ToolCall),
    /// The request's usage (once, before `Stop`).
    Usage(Usage),
    /// The previous attempt failed and the request is sent again after a wait.
    Retrying(Retry),
    /// The answer is complete (always last).
    Stop(StopReason),
}

/// Parses a tool call's argument text: an object, `{}` for empty text, else the raw text.
pub fn parse_arguments(raw: &str) -> Value {
    if raw.trim().is_empty() {
        return Value::Object(serde_json::Map::new());
    }
    match serde_json::from_str::<Value>(raw) {
        Ok(v @ Value::Object(_)) => v,
        _ => Value::String(raw.to_owned()),
    }
}

/// The argument text to send back for a call (`{}` when it was not an object).
pub fn arguments_text(arguments: &Value) -> String {
    match arguments {
        Value::Object(_) => arguments.to_string(),
        Value::String(s) => s.clone(),
        _ => "{}".to_owned(),
    }
}
