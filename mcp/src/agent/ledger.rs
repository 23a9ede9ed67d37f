//! The usage ledger of a native session: one entry per model request, with the turn it belongs
//! to and its purpose (`turn` for the person's own turns, `mcp_sampling` for a server's).

use std::collections::BTreeMap;

/// The person's own turns.
pub const TURN: &str = "turn";
/// A server's sampling request.
pub const MCP_SAMPLING: &str = "mcp_sampling";

/// One model request's spend, as the provider reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Spend {
    /// `turn` or `mcp_sampling`.
    pub purpose: &'static str,
    /// The asking server (sampling).
    pub server: Option<String>,
    /// The model.
    pub model: String,
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
}

/// Input and output tokens summed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Totals {
    /// Input tokens.
    pub input_tokens: u64,
    /// Output tokens.
    pub output_tokens: u64,
    /// Requests counted.
    pub requests: u64,
}

/// Every spend of the session, by turn (`None`: outside any turn).
#[derive(Debug, Clone, Default)]
pub struct Ledger {
    entries: Vec<(Option<u64>, Spend)>,
}

impl Ledger {
    /// Records one entry.
    pub fn record(&mut self, message: Option<u64>, spend: Spend) {
        self.entries.push((message, spend));
    }

    /// Every entry in order.
    pub fn entries(&self) -> &[(Option<u64>, Spend)] {
        &self.entries
    }

    /// Totals per purpose of one turn.
    pub fn message(&self, message: u64) -> BTreeMap<&'static str, Totals> {
        self.sum(|m| m == Some(message))
    }

    /// Totals per purpose of the whole session.
    pub fn session(&self) -> BTreeMap<&'static str, Totals> {
        self.sum(|_| true)
    }

    fn sum(&self, keep: impl Fn(Option<u64>) -> bool) -> BTreeMap<&'static str, Totals> {
        let mut out: BTreeMap<&'static str, Totals> = BTreeMap::new();
        for (m, s) in &self.entries {
            if keep(*m) {
                let t = out.entry(s.purpose).or_default();
                t.input_tokens += s.input_tokens;
                t.output_tokens += s.output_tokens;
                t.requests += 1;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn totals_per_message_and_purpose() {
        let mut l = Ledger::default();
        let s = |purpose, i, o| Spend {
            purpose,
            server: None,
            model: "m".into(),
            input_tokens: i,
            output_tokens: o,
        };
        l.record(Some(1), s(TURN, 10, 5));
        l.record(Some(1), s(TURN, 12, 5));
        l.record(Some(1), s(MCP_SAMPLING, 3, 2));
        l.record(Some(2), s(TURN, 1, 1));
        let m1 = l.message(1);
        assert_eq!(m1[TURN].input_tokens, 22);
        assert_eq!(m1[TURN].requests, 2);
        assert_eq!(m1[MCP_SAMPLING].output_tokens, 2);
        assert_eq!(l.session()[TURN].requests, 3);
    }
}
