//! What the relay reads off the bytes it forwards: ndjson lines of both directions, turned into
//! the facts it records (sessions, prompts' existence and times, tool steps, stop reasons).
//! Prompt text, message text and permission choices are never kept.

use rho_actors::agent::conversation::{MessageRecord, RecordLimits};
use rho_actors::agent::relay::contract::{FactWire, StepWire};
use serde_json::Value;
use std::collections::HashMap;

/// Lines longer than this are forwarded but not read (a file's contents, an image).
const MAX_LINE: usize = 4 << 20;

/// Splits a byte stream into lines, bounded.
#[derive(Default)]
pub(crate) struct Lines {
    buf: Vec<u8>,
    skipping: bool,
}

impl Lines {
    /// Feeds `bytes`; calls `line` with each complete line that was not too long.
    pub(crate) fn feed(&mut self, mut bytes: &[u8], mut line: impl FnMut(&[u8])) {
        while let Some(end) = bytes.iter().position(|&b| b == b'\n') {
            if !self.skipping {
                self.buf.extend_from_slice(&bytes[..end]);
                line(&self.buf);
            }
            self.buf.clear();
            self.skipping = false;
            bytes = &bytes[end + 1..];
        }
        if self.skipping {
            return;
        }
        if self.buf.len() + bytes.len() > MAX_LINE {
            self.buf.clear();
            self.skipping = true;
        } else {
            self.buf.extend_from_slice(bytes);
        }
    }
}

/// A request of the client the relay waits to see answered.
enum Pending {
    New,
    Prompt { session_id: String },
}

/// The relay's reading of one ACP connection.
pub(crate) struct Tap {
    next_n: u64,
    pending: HashMap<String, Pending>,
    /// The running prompt's steps, per session.
    turns: HashMap<String, MessageRecord>,
    limits: RecordLimits,
    now_ms: fn() -> i64,
}

fn id_key(v: &Value) -> Option<String> {
    match &v["id"] {
        Value::Null => None,
        id => Some(id.to_string()),
    }
}

impl Tap {
    pub(crate) fn new(now_ms: fn() -> i64) -> Tap {
        Tap {
            next_n: 0,
            pending: HashMap::new(),
            turns: HashMap::new(),
            limits: RecordLimits::default(),
            now_ms,
        }
    }

    fn n(&mut self) -> u64 {
        self.next_n += 1;
        self.next_n
    }

    /// A line the client sent to the Agent.
    pub(crate) fn client_line(&mut self, line: &[u8]) -> Vec<FactWire> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return Vec::new();
        };
        let (Some(method), Some(id)) = (msg["method"].as_str(), id_key(&msg)) else {
            return Vec::new();
        };
        let session_id = msg["params"]["sessionId"].as_str().map(str::to_string);
        match (method, session_id) {
            ("session/new", _) => {
                self.pending.insert(id, Pending::New);
                Vec::new()
            }
            ("session/load", Some(session_id)) => {
                vec![FactWire::Session {
                    n: self.n(),
                    session_id,
                    how: "load".into(),
                }]
            }
            ("session/prompt", Some(session_id)) => {
                self.turns
                    .insert(session_id.clone(), MessageRecord::default());
                self.pending.insert(
                    id,
                    Pending::Prompt {
                        session_id: session_id.clone(),
                    },
                );
                vec![FactWire::Prompt {
                    n: self.n(),
                    session_id,
                    at_ms: (self.now_ms)(),
                }]
            }
            _ => Vec::new(),
        }
    }

    /// A line the Agent sent to the client.
    pub(crate) fn agent_line(&mut self, line: &[u8]) -> Vec<FactWire> {
        let Ok(msg) = serde_json::from_slice::<Value>(line) else {
            return Vec::new();
        };
        if msg["method"] == "session/update" {
            return self.update(&msg["params"]);
        }
        if msg.get("method").is_some() {
            return Vec::new();
        }
        let Some(pending) = id_key(&msg).and_then(|id| self.pending.remove(&id)) else {
            return Vec::new();
        };
        match pending {
            Pending::New => match msg["result"]["sessionId"].as_str() {
                Some(session_id) => vec![FactWire::Session {
                    n: self.n(),
                    session_id: session_id.to_string(),
                    how: "new".into(),
                }],
                None => Vec::new(),
            },
            Pending::Prompt { session_id } => {
                self.turns.remove(&session_id);
                vec![FactWire::Ended {
                    n: self.n(),
                    session_id,
                    stop_reason: msg["result"]["stopReason"].as_str().map(str::to_string),
                    at_ms: (self.now_ms)(),
                }]
            }
        }
    }

    fn update(&mut self, params: &Value) -> Vec<FactWire> {
        let update = &params["update"];
        let is_step = matches!(
            update["sessionUpdate"].as_str(),
            Some("tool_call" | "tool_call_update")
        );
        let (Some(session_id), Some(step_id), true) = (
            params["sessionId"].as_str(),
            update["toolCallId"].as_str(),
            is_step,
        ) else {
            return Vec::new();
        };
        let now = u64::try_from((self.now_ms)()).unwrap_or_default();
        let limits = self.limits;
        let turn = self.turns.entry(session_id.to_string()).or_default();
        if !turn.fold(update, now, &limits) {
            return Vec::new();
        }
        let Some(step) = turn.steps.iter().find(|s| s.id == step_id) else {
            return Vec::new();
        };
        let step = StepWire::from_step(step);
        vec![FactWire::Step {
            n: self.n(),
            session_id: session_id.to_string(),
            step,
        }]
    }

    /// The fact that ends the relay's record.
    pub(crate) fn closed(&mut self) -> FactWire {
        FactWire::Closed {
            n: self.n(),
            at_ms: (self.now_ms)(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at() -> i64 {
        1_000
    }

    #[test]
    fn lines_split_across_chunks_and_overlong_ones_are_skipped() {
        let mut l = Lines::default();
        let mut got = Vec::new();
        l.feed(b"ab", |x| got.push(x.to_vec()));
        l.feed(b"c\nd\n", |x| got.push(x.to_vec()));
        l.feed(&vec![b'x'; MAX_LINE + 1], |x| got.push(x.to_vec()));
        l.feed(b"y\nz\n", |x| got.push(x.to_vec()));
        assert_eq!(got, vec![b"abc".to_vec(), b"d".to_vec(), b"z".to_vec()]);
    }

    #[test]
    fn a_session_a_prompt_a_step_and_the_stop_reason_never_the_text() {
        let mut t = Tap::new(at);
        assert!(t
            .client_line(br#"{"jsonrpc":"2.0","id":1,"method":"session/new","params":{"cwd":"/p","mcpServers":[]}}"#)
            .is_empty());
        let f = t.agent_line(br#"{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s1"}}"#);
        assert!(
            matches!(&f[..], [FactWire::Session { n: 1, session_id, how }] if session_id == "s1" && how == "new")
        );
        let f = t.client_line(br#"{"jsonrpc":"2.0","id":"p","method":"session/prompt","params":{"sessionId":"s1","prompt":[{"type":"text","text":"SECRET"}]}}"#);
        assert!(matches!(
            &f[..],
            [FactWire::Prompt {
                n: 2,
                at_ms: 1000,
                ..
            }]
        ));
        let f = t.agent_line(br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}"#);
        assert!(f.is_empty());
        let f = t.agent_line(br#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"tool_call","toolCallId":"t1","title":"ls","kind":"execute","status":"pending","rawInput":{"command":"ls -la"}}}}"#);
        let [FactWire::Step { step, .. }] = &f[..] else {
            panic!("{f:?}")
        };
        assert_eq!(
            (step.step_id.as_str(), step.category.as_str()),
            ("t1", "execute")
        );
        let f = t.agent_line(br#"{"jsonrpc":"2.0","id":"p","result":{"stopReason":"end_turn"}}"#);
        assert!(
            matches!(&f[..], [FactWire::Ended { stop_reason: Some(r), .. }] if r == "end_turn")
        );
        let all = format!("{f:?}");
        assert!(!all.contains("SECRET") && !all.contains("hi"));
    }
}
