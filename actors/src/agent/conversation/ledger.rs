//! What Rho's own agent (backend `rho`) journals beyond text and steps: the usage ledger (one
//! entry per model request, by purpose), retries announced while a request is sent again, and
//! each tool call's card details (server, duration, raw input and output), the reference to a
//! card's stored image, and how they fold into a message and the conversation's totals.

use rho_mcp::agent::{StepEnd, StepStart, ToolSource};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One model request's spend as the provider reported it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpendRecord {
    /// `turn` (the person's own turns) or `mcp_sampling` (a server's request).
    pub purpose: String,
    /// The asking server (sampling).
    pub server: Option<String>,
    pub model: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Tokens summed over requests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SpendTotals {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub requests: u64,
}

impl SpendTotals {
    fn add(&mut self, s: &SpendRecord) {
        self.input_tokens += s.input_tokens;
        self.output_tokens += s.output_tokens;
        self.requests += 1;
    }
}

/// Totals per purpose.
pub type Spend = BTreeMap<String, SpendTotals>;

/// Adds one entry to totals per purpose.
pub fn add(totals: &mut Spend, s: &SpendRecord) {
    totals.entry(s.purpose.clone()).or_default().add(s);
}

/// A tool call's card: where the tool comes from, how long it ran, and its raw input and output
/// (bounded); the step with the same id holds its title and status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallRecord {
    /// The step id (the model's call id).
    pub id: String,
    /// The exported name the model called.
    pub name: String,
    /// The MCP server, for an MCP tool.
    pub server: Option<String>,
    /// The project operation, for one of Rho's project tools.
    pub operation: Option<String>,
    /// The raw input as JSON (bounded).
    pub input: String,
    /// What the model read back (bounded; an image as its descriptor).
    pub output: String,
    pub is_error: bool,
    pub cancelled: bool,
    pub duration_ms: u64,
}

/// Bytes of a call's raw input and of its output kept on its card.
const CARD_BYTES: usize = 16 * 1024;

impl CallRecord {
    /// The card of a finished call: where its tool came from (`start`), its input and output
    /// bounded to 16 KiB each.
    pub fn of(step: &StepEnd, start: Option<StepStart>) -> CallRecord {
        let (server, operation) = match start.as_ref().map(|s| &s.source) {
            Some(ToolSource::Mcp { server, .. }) => (Some(server.clone()), None),
            Some(ToolSource::Project { operation }) => (None, Some(operation.clone())),
            _ => (None, None),
        };
        let input = start
            .as_ref()
            .map(|s| s.input.to_string())
            .unwrap_or_default();
        CallRecord {
            id: step.id.clone(),
            name: start.map(|s| s.name).unwrap_or_default(),
            server,
            operation,
            input: bounded(&input, CARD_BYTES).0,
            output: bounded(&step.text, CARD_BYTES).0,
            is_error: step.is_error,
            cancelled: step.cancelled,
            duration_ms: step.duration_ms,
        }
    }
}

/// A call card's image, kept in the project's content-addressed store (`.rho/store/sha256/`)
/// so it outlives the session (decision 0813): the step it belongs to and the stored bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CardImage {
    /// The step id (the model's call id) of the card.
    pub step_id: String,
    pub mime_type: String,
    /// SHA-256 (lowercase hex) of the decoded image bytes: the stored file's name.
    pub sha256: String,
    pub bytes: u64,
}

/// The first `bytes` bytes of `s` (cut on a character boundary), and whether it was cut.
pub fn bounded(s: &str, bytes: usize) -> (String, bool) {
    if s.len() <= bytes {
        return (s.to_string(), false);
    }
    let mut end = bytes;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    (s[..end].to_string(), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_add_per_purpose_and_bounds_cut_on_characters() {
        let mut t = Spend::new();
        let s = |purpose: &str, i, o| SpendRecord {
            purpose: purpose.into(),
            server: None,
            model: "m".into(),
            input_tokens: i,
            output_tokens: o,
        };
        add(&mut t, &s("turn", 10, 5));
        add(&mut t, &s("turn", 2, 1));
        add(&mut t, &s("mcp_sampling", 3, 4));
        assert_eq!(
            t["turn"],
            SpendTotals {
                input_tokens: 12,
                output_tokens: 6,
                requests: 2
            }
        );
        assert_eq!(t["mcp_sampling"].requests, 1);
        assert_eq!(bounded("héllo", 2), ("h".to_string(), true));
        assert_eq!(bounded("abc", 3), ("abc".to_string(), false));
    }
}
