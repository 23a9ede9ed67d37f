//! `POST /v1/responses` (OpenAI Responses, SSE or JSON) and `POST /v1/chat/completions`.

use crate::http::{Event, Reply};
use crate::script::{self, Directive};
use crate::Shared;
use serde_json::{json, Value};

enum Turn {
    Text {
        words: Vec<String>,
        delay_ms: u64,
    },
    Call {
        name: String,
        namespace: Option<String>,
        arguments: Value,
    },
    Error,
    Overloaded,
}

fn text_of(content: &Value) -> String {
    match content {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|p| p["text"].as_str())
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn from_text(text: &str, seen: &Shared) -> Turn {
    let plain = |t: String| Turn::Text {
        words: vec![t],
        delay_ms: 0,
    };
    let exec = |cmd: String, escalated: bool| {
        let mut args = json!({"cmd": cmd});
        if escalated {
            args["sandbox_permissions"] = json!("require_escalated");
            args["justification"] = json!("Run the scripted command");
        }
        Turn::Call {
            name: "exec_command".into(),
            namespace: None,
            arguments: args,
        }
    };
    match script::parse(text) {
        Directive::Bash { command, escalated } => exec(command, escalated),
        Directive::Read(path) => exec(format!("cat {path}"), false),
        Directive::Write { path, text } => exec(format!("printf '%s' '{text}' > {path}"), false),
        Directive::Mcp { tool, arguments } => Turn::Call {
            name: tool,
            namespace: Some("mcp__rho".into()),
            arguments,
        },
        Directive::Tool { name, arguments } => Turn::Call {
            name,
            namespace: None,
            arguments,
        },
        Directive::Flaky(n) if crate::flaky_fails(seen, text, n) => Turn::Overloaded,
        Directive::Flaky(_) => plain(script::PLAIN.to_string()),
        Directive::Slow => Turn::Text {
            words: script::slow_words(),
            delay_ms: script::SLOW_DELAY_MS,
        },
        Directive::Error => Turn::Error,
        Directive::Plain => plain(script::PLAIN.to_string()),
    }
}

/// The last function-call output or typed user text in `input` decides.
fn decide(body: &Value, seen: &Shared) -> Turn {
    if body["tools"].as_array().is_none_or(|t| t.is_empty()) {
        let model = body["model"].as_str().unwrap_or_default();
        let t = if model.contains("luna") {
            json!({"title": script::TITLE}).to_string()
        } else {
            script::TITLE.to_string()
        };
        return Turn::Text {
            words: vec![t],
            delay_ms: 0,
        };
    }
    let mut last: Option<Result<String, String>> = None;
    for item in body["input"].as_array().cloned().unwrap_or_default() {
        match item["type"].as_str() {
            Some("function_call_output") | Some("custom_tool_call_output") => {
                let out = &item["output"];
                let text = match out {
                    Value::String(s) => s.clone(),
                    other => text_of(&other["content"]).max(text_of(other)),
                };
                last = Some(Ok(text));
            }
            Some("message") | None if item["role"] == "user" => {
                let t = text_of(&item["content"]);
                if !t.is_empty() && !script::is_injected(&t) {
                    last = Some(Err(t));
                }
            }
            _ => {}
        }
    }
    match last {
        Some(Ok(output)) => Turn::Text {
            words: vec![script::final_text(&output)],
            delay_ms: 0,
        },
        Some(Err(text)) => from_text(&text, seen),
        None => Turn::Text {
            words: vec![script::PLAIN.to_string()],
            delay_ms: 0,
        },
    }
}

/// Chat Completions: without tools a side request; else the last `tool` message (a result) or
/// `user` message (a directive) decides.
fn decide_chat(body: &Value, seen: &Shared) -> Turn {
    if body["tools"].as_array().is_none_or(|t| t.is_empty()) {
        return Turn::Text {
            words: vec![script::TITLE.to_string()],
            delay_ms: 0,
        };
    }
    let last = body["messages"]
        .as_array()
        .and_then(|m| {
            m.iter()
                .rev()
                .find(|m| m["role"] == "user" || m["role"] == "tool")
                .cloned()
        })
        .unwrap_or(Value::Null);
    if last["role"] == "tool" {
        return Turn::Text {
            words: vec![script::final_text(&text_of(&last["content"]))],
            delay_ms: 0,
        };
    }
    from_text(&text_of(&last["content"]), seen)
}

fn usage() -> Value {
    json!({"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 5, "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 15})
}

fn error() -> Reply {
    Reply::Json(
        500,
        json!({"error": {"type": "server_error", "message": "scripted error from the mock model"}}),
    )
}

fn overloaded() -> Reply {
    Reply::Json(
        503,
        json!({"error": {"type": "server_error", "message": "scripted overload from the mock model"}}),
    )
}

pub(crate) fn responses(body: &Value, seen: &Shared) -> Reply {
    let n = crate::next_id();
    let id = format!("resp_mock_{n}");
    let item_id = format!("msg_mock_{n}");
    let turn = decide(body, seen);
    let item = match &turn {
        Turn::Error => return error(),
        Turn::Overloaded => return overloaded(),
        Turn::Text { words, .. } => {
            json!({"type": "message", "id": item_id, "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": words.concat(), "annotations": []}]})
        }
        Turn::Call {
            name,
            namespace,
            arguments,
        } => {
            let mut call = json!({"type": "function_call", "id": format!("fc_mock_{n}"), "call_id": format!("call_mock_{n}"), "name": name, "arguments": arguments.to_string(), "status": "completed"});
            if let Some(ns) = namespace {
                call["namespace"] = json!(ns);
            }
            call
        }
    };
    if !body["stream"].as_bool().unwrap_or(false) {
        return Reply::Json(
            200,
            json!({"id": id, "object": "response", "status": "completed", "model": body["model"], "output": [item], "usage": usage()}),
        );
    }
    let mut events = vec![Event::typed(
        "response.created",
        json!({"response": {"id": id, "status": "in_progress"}}),
    )];
    if let Turn::Text { words, delay_ms } = turn {
        events.push(Event::typed(
            "response.output_item.added",
            json!({"output_index": 0, "item": {"type": "message", "id": item_id, "role": "assistant", "status": "in_progress", "content": []}}),
        ));
        for w in words {
            events.push(
                Event::typed(
                    "response.output_text.delta",
                    json!({"item_id": item_id, "output_index": 0, "content_index": 0, "delta": w}),
                )
                .after(delay_ms),
            );
        }
    }
    events.push(Event::typed(
        "response.output_item.done",
        json!({"output_index": 0, "item": item}),
    ));
    events.push(Event::typed(
        "response.completed",
        json!({"response": {"id": id, "status": "completed", "usage": usage()}}),
    ));
    Reply::Sse(events)
}

pub(crate) fn chat(body: &Value, seen: &Shared) -> Reply {
    let n = crate::next_id();
    let id = format!("chatcmpl_mock_{n}");
    let call_id = format!("call_mock_{n}");
    let turn = decide_chat(body, seen);
    let usage = json!({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15});
    let (message, finish) = match &turn {
        Turn::Error => return error(),
        Turn::Overloaded => return overloaded(),
        Turn::Text { words, .. } => (
            json!({"role": "assistant", "content": words.concat()}),
            "stop",
        ),
        Turn::Call {
            name, arguments, ..
        } => (
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments.to_string()}}]}),
            "tool_calls",
        ),
    };
    if !body["stream"].as_bool().unwrap_or(false) {
        return Reply::Json(
            200,
            json!({"id": id, "object": "chat.completion", "model": body["model"], "choices": [{"index": 0, "message": message, "finish_reason": finish}], "usage": usage}),
        );
    }
    let chunk = |delta: Value, finish: Value| {
        Event::data(json!({"id": id, "object": "chat.completion.chunk", "model": body["model"], "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}).to_string())
    };
    let mut events = Vec::new();
    match turn {
        Turn::Text { words, delay_ms } => {
            events.push(chunk(
                json!({"role": "assistant", "content": ""}),
                Value::Null,
            ));
            for w in words {
                events.push(chunk(json!({"content": w}), Value::Null).after(delay_ms));
            }
        }
        Turn::Call {
            name, arguments, ..
        } => {
            events.push(chunk(
                json!({"role": "assistant", "content": null, "tool_calls": [{"index": 0, "id": call_id, "type": "function", "function": {"name": name, "arguments": ""}}]}),
                Value::Null,
            ));
            events.push(chunk(
                json!({"tool_calls": [{"index": 0, "function": {"arguments": arguments.to_string()}}]}),
                Value::Null,
            ));
        }
        Turn::Error | Turn::Overloaded => {}
    }
    events.push(chunk(json!({}), json!(finish)));
    if body["stream_options"]["include_usage"] == true {
        events.push(Event::data(
            json!({"id": id, "object": "chat.completion.chunk", "choices": [], "usage": usage})
                .to_string(),
        ));
    }
    events.push(Event::data("[DONE]".to_string()));
    Reply::Sse(events)
}
