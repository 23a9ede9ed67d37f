//! The pluggable surfaces the host supplies: a responder that can put a question in front of
//! a person, a model for sampling, and a usage ledger. Absent ones declare nothing.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

/// A boxed future (no async-trait dependency).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// One question of a form, as Rho's choice-only questionnaire shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct Field {
    /// Property name.
    pub name: String,
    /// Label (schema `title`, else the name).
    pub title: String,
    /// Help text: description plus constraints (shown, not enforced).
    pub help: Option<String>,
    /// How it is asked.
    pub kind: FieldKind,
    /// Required by the schema.
    pub required: bool,
    /// The schema default, pre-filled.
    pub default: Option<serde_json::Value>,
    /// The property's own schema (its constraints, for a form that checks an answer).
    pub schema: serde_json::Value,
}

/// How a field is asked.
#[derive(Debug, Clone, PartialEq)]
pub enum FieldKind {
    /// Choices `(value, label)`; `multi` for multi-select.
    Choice {
        /// Values and labels.
        options: Vec<(String, String)>,
        /// Multi-select.
        multi: bool,
    },
    /// Yes/no.
    Confirm,
    /// Free text.
    Text,
    /// Free text parsed back to a number (`integer` when whole numbers only).
    Number {
        /// Integer only.
        integer: bool,
    },
}

/// A form titled with the asking server's identity.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// Asking server identity.
    pub server: String,
    /// The server's message.
    pub message: String,
    /// Fields.
    pub fields: Vec<Field>,
}

/// One field's answer: always text, one or several values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnswerValue {
    /// One value.
    One(String),
    /// Several values (multi-select).
    Many(Vec<String>),
}

/// What the person did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Filled in and submitted.
    Submitted(BTreeMap<String, AnswerValue>),
    /// Declined to answer (the server carries on without the information).
    Declined,
    /// Dismissed the form (cancel; ends the turn).
    Dismissed,
    /// Could not be asked.
    Unavailable,
}

/// A sampling request shown for confirmation (gate two).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SamplingAsk {
    /// Asking server identity.
    pub server: String,
    /// Number of messages.
    pub messages: usize,
    /// The token ceiling it asked for (shown, not enforced).
    pub max_tokens: u32,
}

/// Puts questions in front of a person (the host's UI).
pub trait Responder: Send + Sync {
    /// Shows a form and waits for the person.
    fn ask(&self, question: Question) -> BoxFuture<'_, Answer>;
    /// Asks whether a server may spend the user's tokens on this request.
    fn confirm_sampling(&self, ask: SamplingAsk) -> BoxFuture<'_, bool>;
}

/// A one-shot completion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Completion {
    /// The text.
    pub text: String,
    /// Input tokens spent.
    pub input_tokens: u64,
    /// Output tokens spent.
    pub output_tokens: u64,
}

/// The session's current model (one-shot path: system prompt + one user turn).
pub trait Model: Send + Sync {
    /// The model's name, reported to the server.
    fn name(&self) -> String;
    /// Runs one completion.
    fn complete(
        &self,
        system: Option<String>,
        user: String,
    ) -> BoxFuture<'_, Result<Completion, String>>;
}

/// One ledger entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Usage {
    /// Always `mcp_sampling` here.
    pub purpose: &'static str,
    /// Server identity that asked.
    pub server: String,
    /// Model used.
    pub model: String,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

/// Records spend.
pub trait UsageLedger: Send + Sync {
    /// Records one entry.
    fn record(&self, usage: Usage);
}

/// What a run can do for servers.
#[derive(Clone, Default)]
pub struct Policies {
    /// A person can be asked (declares elicitation).
    pub responder: Option<Arc<dyn Responder>>,
    /// A model is bound (with `sampling = "ask"`, declares sampling).
    pub model: Option<Arc<dyn Model>>,
    /// Where sampling spend goes.
    pub ledger: Option<Arc<dyn UsageLedger>>,
}

impl std::fmt::Debug for Policies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Policies")
            .field("responder", &self.responder.is_some())
            .field("model", &self.model.is_some())
            .field("ledger", &self.ledger.is_some())
            .finish()
    }
}
