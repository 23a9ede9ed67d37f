//! Chat Completions (OpenAI-compatible local servers): the request body (system message, tool
//! calls and `tool` messages, function tools, streamed usage) and the decoder of its chunks.

use serde_json::{json, Value};

use super::error::ModelError;
use super::sse::SseEvent;
use super::types::{
    arguments_text, parse_arguments, Event, Message, Part, Request, StopReason, ToolCall, Usage,
};

/// `POST {base}/chat/completions`.
pub fn url(base: &str) -> String {
    format!("{base}/chat/completions")
}

/// The messages, the system prompt first.
pub fn messages(system: &str, msgs: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    if !system.is_empty() {
        out.push(json!({"role": "system", "content": system}));
    }
    for m in msgs {
        match m {
            Message::User(parts) => {
                let content = match parts.as_slice() {
                    [Part::Text(t)] => json!(t),
                    _ => parts
                        .iter()
                        .map(|p| match p {
                            Part::Text(t) => json!({"type": "text", "text": t}),
                            Part::Image { mime_type, data } => json!({"type": "image_url", "image_url": {"url": format!("data:{mime_type};base64,{data}")}}),
                        })
                        .collect(),
                };
                out.push(json!({"role": "user", "content": content}));
            }
            Message::Assistant { text, calls } => {
                let mut a = json!({"role": "assistant", "content": if text.is_empty() { Value::Null } else { json!(text) }});
                if !calls.is_empty() {
                    a["tool_calls"] = calls
                        .iter()
                        .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": arguments_text(&c.arguments)}}))
                        .collect();
                }
                out.push(a);
            }
            Message::Tool(results) => {
                for r in results {
                    out.push(json!({"role": "tool", "tool_call_id": r.call_id, "content": r.text}));
                }
            }
        }
    }
    out
}

/// The streamed request body.
pub fn body(model: &str, req: &Request) -> Value {
    let mut b = json!({
        "model": model,
        "messages": messages(&req.system, &req.messages),
        "max_tokens": req.max_tokens,
        "stream": true,
        "stream_options": {"include_usage": true},
    });
    if !req.tools.is_empty() {
        b["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.input_schema}}))
            .collect();
    }
    b
}

/// Decodes chunks up to `[DONE]`; tool calls are assembled by index and given at the finish.
#[derive(Debug, Default)]
pub struct Decoder {
    calls: std::collections::BTreeMap<u64, (String, String, String)>,
    usage: Usage,
    finish: Option<String>,
    done: bool,
}

impl Decoder {
    /// One chunk in, what it completes out.
    pub fn event(&mut self, e: &SseEvent) -> Result<Vec<Event>, ModelError> {
        if e.data.trim() == "[DONE]" {
            return Ok(self.end());
        }
        let v: Value = serde_json::from_str(&e.data)
            .map_err(|err| ModelError::Decode(format!("a chunk is not JSON: {err}")))?;
        if let Some(m) = v["error"]["message"].as_str() {
            return Err(ModelError::Stream(m.to_owned()));
        }
        let mut out = Vec::new();
        if let Some(u) = v.get("usage").filter(|u| u.is_object()) {
            self.usage = Usage {
                input_tokens: u["prompt_tokens"].as_u64().unwrap_or(0),
                output_tokens: u["completion_tokens"].as_u64().unwrap_or(0),
            };
        }
        for choice in v["choices"].as_array().into_iter().flatten() {
            let d = &choice["delta"];
            if let Some(t) = d["content"].as_str().filter(|t| !t.is_empty()) {
                out.push(Event::Text(t.to_owned()));
            }
            for tc in d["tool_calls"].as_array().into_iter().flatten() {
                let idx = tc["index"].as_u64().unwrap_or(0);
                let entry = self.calls.entry(idx).or_default();
                if let Some(id) = tc["id"].as_str() {
                    entry.0 = id.to_owned();
                }
                if let Some(n) = tc["function"]["name"].as_str() {
                    entry.1.push_str(n);
                }
                if let Some(a) = tc["function"]["arguments"].as_str() {
                    entry.2.push_str(a);
                }
            }
            if let Some(f) = choice["finish_reason"].as_str() {
                self.finish = Some(f.to_owned());
            }
        }
        Ok(out)
    }

    fn end(&mut self) -> Vec<Event> {
        if self.done {
            return Vec::new();
        }
        self.done = true;
        let mut out: Vec<Event> = std::mem::take(&mut self.calls)
            .into_iter()
            .map(|(i, (id, name, args))| {
                Event::ToolCall(ToolCall {
                    id: if id.is_empty() {
                        format!("call_{i}")
                    } else {
                        id
                    },
                    name,
                    arguments: parse_arguments(&args),
                })
            })
            .collect();
        let stop = match self.finish.as_deref() {
            _ if !out.is_empty() => StopReason::ToolUse,
            Some("stop") | None => StopReason::EndTurn,
            Some("length") => StopReason::MaxTokens,
            Some("content_filter") => StopReason::Refusal,
            Some("tool_calls") => StopReason::ToolUse,
            Some(other) => StopReason::Other(other.to_owned()),
        };
        out.push(Event::Usage(self.usage));
        out.push(Event::Stop(stop));
        out
    }

    /// A stream that ended without `[DONE]` after its finish reason is complete too (some
    /// local servers close without it).
    pub fn finish(&mut self) -> Vec<Event> {
        if self.finish.is_some() {
            self.end()
        } else {
            Vec::new()
        }
    }

    /// Whether the answer is complete.
    pub fn done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_call_deltas_assemble() {
        let mut d = Decoder::default();
        let mut all = Vec::new();
        for data in [
            json!({"choices": [{"index": 0, "delta": {"role": "assistant", "tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "echo", "arguments": ""}}]}}]}).to_string(),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "{\"m\":"}}]}}]}).to_string(),
            json!({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": "\"x\"}"}}]}, "finish_reason": "tool_calls"}]}).to_string(),
            json!({"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5}}).to_string(),
            "[DONE]".to_owned(),
        ] {
            all.extend(d.event(&SseEvent { event: None, data }).unwrap());
        }
        assert_eq!(
            all,
            vec![
                Event::ToolCall(ToolCall {
                    id: "c1".into(),
                    name: "echo".into(),
                    arguments: json!({"m": "x"})
                }),
                Event::Usage(Usage {
                    input_tokens: 10,
                    output_tokens: 5
                }),
                Event::Stop(StopReason::ToolUse),
            ]
        );
    }
}
