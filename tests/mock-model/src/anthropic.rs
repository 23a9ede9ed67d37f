//! `POST /v1/messages`: the Anthropic Messages reply, streamed (SSE) or whole (JSON).

use crate::http::{Event, Reply};
use crate::script::{self, Directive};
use crate::Shared;
use serde_json::{json, Value};

/// What the next assistant turn is.
pub(crate) enum Turn {
    Text { words: Vec<String>, delay_ms: u64 },
    Tool { name: String, input: Value },
    Error,
    Overloaded,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// The newest typed user text or tool result decides (CLI-injected blocks skipped).
fn decide(body: &Value, seen: &Shared) -> Turn {
    let has_tools = body["tools"].as_array().is_some_and(|t| !t.is_empty());
    if !has_tools {
        return Turn::Text {
            words: vec![script::TITLE.to_string()],
            delay_ms: 0,
        };
    }
    let mut last: Option<Result<String, String>> = None; // Ok(tool output) / Err(user text)
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    if let Some(user) = messages.iter().rev().find(|m| m["role"] == "user") {
        match &user["content"] {
            Value::String(s) if !script::is_injected(s) => last = Some(Err(s.clone())),
            Value::Array(blocks) => {
                for b in blocks {
                    match b["type"].as_str() {
                        Some("tool_result") => last = Some(Ok(text_of(&b["content"]))),
                        Some("text") => {
                            let t = b["text"].as_str().unwrap_or_default();
                            if !script::is_injected(t) {
                                last = Some(Err(t.to_string()));
                            }
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    let plain = |t: &str| Turn::Text {
        words: vec![t.to_string()],
        delay_ms: 0,
    };
    match last {
        Some(Ok(output)) => plain(&script::final_text(&output)),
        Some(Err(text)) => match script::parse(&text) {
            Directive::Bash { command, .. } => Turn::Tool {
                name: "Bash".into(),
                input: json!({"command": command, "description": "Run the scripted command"}),
            },
            Directive::Read(path) => Turn::Tool {
                name: "Read".into(),
                input: json!({"file_path": path}),
            },
            Directive::Write { path, text } => Turn::Tool {
                name: "Write".into(),
                input: json!({"file_path": path, "content": text}),
            },
            Directive::Mcp { tool, arguments } => Turn::Tool {
                name: format!("mcp__rho__{tool}"),
                input: arguments,
            },
            Directive::Tool { name, arguments } => Turn::Tool {
                name,
                input: arguments,
            },
            Directive::Flaky(n) if crate::flaky_fails(seen, &text, n) => Turn::Overloaded,
            Directive::Flaky(_) => plain(script::PLAIN),
            Directive::Slow => Turn::Text {
                words: script::slow_words(),
                delay_ms: script::SLOW_DELAY_MS,
            },
            Directive::Error => Turn::Error,
            Directive::Plain => plain(script::PLAIN),
        },
        None => plain(script::PLAIN),
    }
}

fn usage() -> Value {
    json!({"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0})
}

pub(crate) fn reply(body: &Value, seen: &Shared) -> Reply {
    let model = body["model"].as_str().unwrap_or("mock-model").to_string();
    let turn = decide(body, seen);
    match turn {
        Turn::Error => {
            return Reply::Json(
                500,
                json!({"type": "error", "error": {"type": "api_error", "message": "scripted error from the mock model"}}),
            )
        }
        Turn::Overloaded => {
            return Reply::Json(
                503,
                json!({"type": "error", "error": {"type": "overloaded_error", "message": "scripted overload from the mock model"}}),
            )
        }
        _ => {}
    }
    let n = crate::next_id();
    let id = format!("msg_mock_{n}");
    let tool_id = format!("toolu_mock_{n}");
    let (block, stop) = match &turn {
        Turn::Text { words, .. } => (json!({"type": "text", "text": words.concat()}), "end_turn"),
        Turn::Tool { name, input } => (
            json!({"type": "tool_use", "id": tool_id, "name": name, "input": input}),
            "tool_use",
        ),
        Turn::Error | Turn::Overloaded => (Value::Null, "end_turn"),
    };
    if !body["stream"].as_bool().unwrap_or(false) {
        return Reply::Json(
            200,
            json!({"id": id, "type": "message", "role": "assistant", "model": model, "content": [block], "stop_reason": stop, "stop_sequence": null, "usage": usage()}),
        );
    }
    let mut events = vec![Event::typed(
        "message_start",
        json!({"message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [], "stop_reason": null, "stop_sequence": null, "usage": usage()}}),
    )];
    match turn {
        Turn::Text { words, delay_ms } => {
            events.push(Event::typed(
                "content_block_start",
                json!({"index": 0, "content_block": {"type": "text", "text": ""}}),
            ));
            for w in words {
                events.push(
                    Event::typed(
                        "content_block_delta",
                        json!({"index": 0, "delta": {"type": "text_delta", "text": w}}),
                    )
                    .after(delay_ms),
                );
            }
        }
        Turn::Tool { name, input } => {
            events.push(Event::typed(
                "content_block_start",
                json!({"index": 0, "content_block": {"type": "tool_use", "id": tool_id, "name": name, "input": {}}}),
            ));
            events.push(Event::typed(
                "content_block_delta",
                json!({"index": 0, "delta": {"type": "input_json_delta", "partial_json": input.to_string()}}),
            ));
        }
        Turn::Error | Turn::Overloaded => {}
    }
    events.push(Event::typed("content_block_stop", json!({"index": 0})));
    events.push(Event::typed(
        "message_delta",
        json!({"delta": {"stop_reason": stop, "stop_sequence": null}, "usage": {"output_tokens": 5}}),
    ));
    events.push(Event::typed("message_stop", json!({})));
    Reply::Sse(events)
}
