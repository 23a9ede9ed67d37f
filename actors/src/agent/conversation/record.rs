//! What a conversation message keeps: its text in order, stop reason, usage and tool steps,
//! folded from ACP `session/update`s (unknown kinds and `_meta` ignored, steps merged by id).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeSet;

/// The `--limits` keys of the bounds a message's record applies, named in what it cut.
pub const MESSAGE_BYTES: &str = "conversations.maxMessageBytes";
pub const STEPS: &str = "conversations.maxSteps";
pub const OUTPUT_LINES: &str = "conversations.maxOutputLines";
pub const OUTPUT_BYTES: &str = "conversations.maxOutputBytes";
pub const INPUT_CHARS: &str = "conversations.maxInputChars";

/// Bounds on what one message keeps (the `conversations` limits group).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RecordLimits {
    /// Bytes one message keeps: its text, and its steps' inputs and outputs. When it is full,
    /// commands' outputs are given up first (oldest first), then new text is cut.
    pub message_bytes: usize,
    /// Tool steps kept per message.
    pub steps: usize,
    /// Lines of a command's output kept (its last ones).
    pub output_lines: usize,
    /// Bytes of a command's output kept.
    pub output_bytes: usize,
    /// Characters of a step's identifying input and of its purpose line.
    pub input_chars: usize,
}

impl Default for RecordLimits {
    fn default() -> Self {
        RecordLimits::from(&crate::limits::ConversationLimits::default())
    }
}

impl From<&crate::limits::ConversationLimits> for RecordLimits {
    fn from(l: &crate::limits::ConversationLimits) -> Self {
        let n = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        RecordLimits {
            message_bytes: n(l.max_message_bytes),
            steps: n(l.max_steps),
            output_lines: n(l.max_output_lines),
            output_bytes: n(l.max_output_bytes),
            input_chars: n(l.max_input_chars),
        }
    }
}

/// One tool step of a message.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolStep {
    pub id: String,
    /// The human title the Agent gave.
    pub title: String,
    /// The ACP category (`execute`, `edit`, `read`, `search`, `fetch`, `think`, `other`, ...).
    pub kind: String,
    /// One identifying input: command, file path, pattern or query (bounded).
    pub input: Option<String>,
    pub started_ms: u64,
    /// `pending`, `in_progress`, `completed` or `failed`.
    pub status: String,
    /// For a command: its exit code when the Agent reported one.
    pub exit_code: Option<i32>,
    /// For a command: the last lines it printed (bounded).
    pub output: String,
    /// For a command: the Agent's own one-line purpose, when given.
    pub purpose: Option<String>,
    /// Set when the output was given up because the message was full.
    pub output_dropped: bool,
}

/// Token usage when the Agent reports it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
}

/// One message's retained record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MessageRecord {
    pub text: String,
    /// Set when the message was full and text was cut.
    pub text_cut: bool,
    /// Set when steps passed [`RecordLimits::steps`] and later ones were not kept.
    pub steps_cut: bool,
    /// Bytes of text not kept, and steps not kept (counted for the message's `cut`).
    pub cut_text_bytes: u64,
    pub cut_steps: u64,
    pub steps: Vec<ToolStep>,
    /// The prompt's ACP stop reason once it answered.
    pub stop_reason: Option<String>,
    pub usage: Option<Usage>,
    /// The `--limits` keys of every bound that cut something of this message.
    #[serde(skip)]
    pub cut_by: BTreeSet<&'static str>,
    /// `(code, message)` the driver has to say about the message (`claude-cli`: a permission
    /// it could not answer).
    pub notice: Option<(String, String)>,
}

/// The first line of `s`, at most `chars` characters (`cut` names the key when it was longer).
fn bounded(s: &str, chars: usize, cut: &mut BTreeSet<&'static str>) -> String {
    let line = s.lines().next().unwrap_or_default();
    if line.chars().nth(chars).is_some() {
        cut.insert(INPUT_CHARS);
    }
    line.chars().take(chars).collect()
}

/// The last `lines` lines of `s`, at most `bytes` bytes (cut on a character boundary).
pub fn tail(s: &str, lines: usize, bytes: usize) -> String {
    tail_cut(s, lines, bytes).0
}

/// [`tail`], and the key of the bound that cut it (lines first), if one did.
pub fn tail_cut(s: &str, lines: usize, bytes: usize) -> (String, Option<&'static str>) {
    let all: Vec<&str> = s.trim_end_matches('\n').lines().collect();
    let mut cut = (all.len() > lines).then_some(OUTPUT_LINES);
    let kept = all[all.len().saturating_sub(lines)..].join("\n");
    let mut start = kept.len().saturating_sub(bytes);
    while !kept.is_char_boundary(start) {
        start += 1;
    }
    if start > 0 {
        cut = cut.or(Some(OUTPUT_BYTES));
    }
    (kept[start..].to_string(), cut)
}

/// The identifying input of a tool call's raw input.
pub fn identifying_input(raw: &Value) -> Option<String> {
    let field = [
        "command",
        "cmd",
        "file_path",
        "path",
        "pattern",
        "query",
        "url",
        "notebook_path",
    ]
    .iter()
    .find_map(|k| raw.get(*k).filter(|v| !v.is_null()))?;
    match field {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => Some(
            parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join(" "),
        ),
        other => Some(other.to_string()),
    }
}

fn text_output(u: &Value) -> Option<String> {
    let from_content: Vec<&str> = u["content"]
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter(|c| c["type"] == "content")
                .filter_map(|c| c["content"]["text"].as_str())
                .collect()
        })
        .unwrap_or_default();
    if !from_content.is_empty() {
        return Some(from_content.join("\n"));
    }
    let raw = &u["rawOutput"];
    if let Some(s) = raw.as_str() {
        return Some(s.to_string());
    }
    ["formatted_output", "aggregated_output", "output", "stdout"]
        .iter()
        .find_map(|k| raw[*k].as_str().map(str::to_string))
}

/// A command's output without the Markdown code fence an adapter may wrap it in.
fn unfence(text: &str) -> String {
    let t = text.trim();
    match t.strip_prefix("```") {
        Some(rest) => {
            let body = rest.split_once('\n').map_or("", |(_, b)| b);
            body.strip_suffix("```").unwrap_or(body).to_string()
        }
        None => text.to_string(),
    }
}

fn exit_code(u: &Value) -> Option<i32> {
    [
        &u["_meta"]["terminal_exit"]["exit_code"],
        &u["rawOutput"]["exit_code"],
        &u["rawOutput"]["exitCode"],
    ]
    .iter()
    .find_map(|v| v.as_i64())
    .and_then(|n| i32::try_from(n).ok())
}

impl MessageRecord {
    /// The bytes the message keeps.
    pub fn size(&self) -> usize {
        self.text.len()
            + self
                .steps
                .iter()
                .map(|s| {
                    s.title.len()
                        + s.input.as_ref().map_or(0, String::len)
                        + s.output.len()
                        + s.purpose.as_ref().map_or(0, String::len)
                })
                .sum::<usize>()
    }

    /// Gives up commands' outputs, oldest first, until `more` bytes fit (or none is left).
    fn make_room(&mut self, more: usize, limits: &RecordLimits) {
        for i in 0..self.steps.len() {
            if self.size() + more <= limits.message_bytes {
                return;
            }
            let step = &mut self.steps[i];
            if !step.output.is_empty() {
                step.output.clear();
                step.output_dropped = true;
                self.cut_by.insert(MESSAGE_BYTES);
            }
        }
    }

    /// Folds one `session/update` into the record; returns whether it changed.
    pub fn fold(&mut self, update: &Value, now_ms: u64, limits: &RecordLimits) -> bool {
        match update["sessionUpdate"].as_str() {
            Some("agent_message_chunk") => {
                let Some(text) = update["content"]["text"].as_str() else {
                    return false;
                };
                self.make_room(text.len(), limits);
                let room = limits.message_bytes.saturating_sub(self.size());
                if text.len() > room {
                    let mut end = room;
                    while !text.is_char_boundary(end) {
                        end -= 1;
                    }
                    self.text.push_str(&text[..end]);
                    self.text_cut = true;
                    self.cut_by.insert(MESSAGE_BYTES);
                    self.cut_text_bytes += (text.len() - end) as u64;
                } else {
                    self.text.push_str(text);
                }
                true
            }
            Some("tool_call") | Some("tool_call_update") => {
                let Some(id) = update["toolCallId"].as_str() else {
                    return false;
                };
                let index = match self.steps.iter().position(|s| s.id == id) {
                    Some(i) => i,
                    None if self.steps.len() >= limits.steps => {
                        self.steps_cut = true;
                        self.cut_by.insert(STEPS);
                        if update["sessionUpdate"] == "tool_call" {
                            self.cut_steps += 1;
                        }
                        return false;
                    }
                    None => {
                        self.steps.push(ToolStep {
                            id: id.to_string(),
                            started_ms: now_ms,
                            status: "pending".into(),
                            ..ToolStep::default()
                        });
                        self.steps.len() - 1
                    }
                };
                merge(&mut self.steps[index], update, limits, &mut self.cut_by);
                self.make_room(0, limits);
                true
            }
            _ => false,
        }
    }
}

fn merge(step: &mut ToolStep, u: &Value, limits: &RecordLimits, cut: &mut BTreeSet<&'static str>) {
    if let Some(t) = u["title"].as_str().filter(|t| !t.is_empty()) {
        step.title = bounded(t, limits.input_chars, cut);
    }
    if let Some(k) = u["kind"].as_str() {
        step.kind = k.to_string();
    }
    if let Some(s) = u["status"].as_str() {
        step.status = s.to_string();
    }
    if let Some(input) = identifying_input(&u["rawInput"]) {
        if input.chars().nth(limits.input_chars).is_some() {
            cut.insert(INPUT_CHARS);
        }
        step.input = Some(input.chars().take(limits.input_chars).collect());
    }
    if let Some(p) = u["rawInput"]["description"]
        .as_str()
        .filter(|p| !p.is_empty())
    {
        step.purpose = Some(bounded(p, limits.input_chars, cut));
    }
    if step.kind != "execute" {
        return;
    }
    if let Some(code) = exit_code(u) {
        step.exit_code = Some(code);
    }
    if step.output_dropped {
        return;
    }
    let meta = &u["_meta"];
    let output = if let Some(d) = meta["terminal_output_delta"]["data"].as_str() {
        format!("{}{d}", step.output)
    } else if let Some(whole) = meta["terminal_output"]["data"].as_str() {
        whole.to_string()
    } else if let Some(whole) = text_output(u) {
        unfence(&whole)
    } else {
        return;
    };
    let (kept, by) = tail_cut(&output, limits.output_lines, limits.output_bytes);
    step.output = kept;
    cut.extend(by);
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn text_steps_and_bounds_fold() {
        let limits = RecordLimits {
            message_bytes: 10,
            ..RecordLimits::default()
        };
        let mut m = MessageRecord::default();
        m.fold(&json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello "}}), 1, &limits);
        m.fold(&json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "world!"}}), 2, &limits);
        assert_eq!(m.text, "Hello worl");
        assert!(m.text_cut);
        assert_eq!(m.cut_by, BTreeSet::from([MESSAGE_BYTES]));
        assert!(!m.fold(
            &json!({"sessionUpdate": "usage_update", "used": 3}),
            3,
            &limits
        ));
        let limits = RecordLimits::default();
        m.fold(&json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "status": "pending", "rawInput": {}}), 5, &limits);
        m.fold(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "`ls`", "kind": "execute", "rawInput": {"command": "ls", "description": "List files\nmore"}}), 6, &limits);
        let lines: String = (1..=30).map(|i| format!("line{i}\n")).collect();
        m.fold(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "_meta": {"terminal_output_delta": {"data": lines}, "terminal_exit": {"exit_code": 2}}}), 7, &limits);
        let s = &m.steps[0];
        assert_eq!(
            (s.title.as_str(), s.kind.as_str(), s.status.as_str()),
            ("`ls`", "execute", "completed")
        );
        assert_eq!(s.input.as_deref(), Some("ls"));
        assert_eq!(s.purpose.as_deref(), Some("List files"));
        assert_eq!(s.started_ms, 5);
        assert_eq!(s.exit_code, Some(2));
        assert_eq!(s.output.lines().count(), 20);
        assert!(m.cut_by.contains(OUTPUT_LINES), "{:?}", m.cut_by);
        assert!(!m.cut_by.contains(INPUT_CHARS), "{:?}", m.cut_by);
        assert_eq!(
            tail_cut("a\nb", 20, 1),
            ("b".to_string(), Some(OUTPUT_BYTES))
        );
        assert_eq!(tail_cut("a\nb", 20, 10), ("a\nb".to_string(), None));
        assert!(s.output.starts_with("line11") && s.output.ends_with("line30"));
        assert_eq!(tail(&"x".repeat(5000), 20, 2048).len(), 2048);
        // A full message gives up a command's output before it cuts text.
        let limits = RecordLimits {
            message_bytes: 40,
            ..RecordLimits::default()
        };
        let mut m = MessageRecord::default();
        m.fold(&json!({"sessionUpdate": "tool_call", "toolCallId": "c", "kind": "execute", "title": "t", "rawInput": {"command": "c"}}), 1, &limits);
        m.fold(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "_meta": {"terminal_output": {"data": "0123456789012345678901234567890"}}}), 2, &limits);
        assert_eq!(m.steps[0].output.len(), 31);
        m.fold(&json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "twenty bytes of text"}}), 3, &limits);
        assert!(m.steps[0].output.is_empty() && m.steps[0].output_dropped);
        assert_eq!(m.text, "twenty bytes of text");
        assert!(!m.text_cut);
        m.fold(&json!({"sessionUpdate": "tool_call_update", "toolCallId": "c", "_meta": {"terminal_output": {"data": "again"}}}), 4, &limits);
        assert!(
            m.steps[0].output.is_empty(),
            "a given-up output stays given up"
        );
        m.fold(&json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "and then far too much more text"}}), 5, &limits);
        assert!(m.text_cut && m.size() <= 40, "{}", m.size());
        assert_eq!(unfence("```console\na\nb\n```"), "a\nb\n");
    }
}
