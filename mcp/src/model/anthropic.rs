//! Anthropic Messages: the request body (system, messages with tool_use/tool_result blocks,
//! tools, streaming) and the decoder of its event stream.

use serde_json::{json, Value};

use super::error::ModelError;
use super::sse::SseEvent;
use super::types::{parse_arguments, Event, Message, Part, Request, StopReason, ToolCall, Usage};

/// `POST {base}/v1/messages`.
pub fn url(base: &str) -> String {
    format!("{base}/v1/messages")
}

fn user_parts(parts: &[Part]) -> Vec<Value> {
    parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) if t.is_empty() => None,
            Part::Text(t) => Some(json!({"type": "text", "text": t})),
            Part::Image { mime_type, data } => Some(
                json!({"type": "image", "source": {"type": "base64", "media_type": mime_type, "data": data}}),
            ),
        })
        .collect()
}

/// The messages array: tool results ride in a user message; consecutive messages of one role
/// are merged (a turn cut short leaves two user messages in a row).
pub fn messages(msgs: &[Message]) -> Vec<Value> {
    let mut out: Vec<(&'static str, Vec<Value>)> = Vec::new();
    for m in msgs {
        let (role, blocks) = match m {
            Message::User(parts) => ("user", user_parts(parts)),
            Message::Tool(results) => (
                "user",
                results
                    .iter()
                    .map(|r| json!({"type": "tool_result", "tool_use_id": r.call_id, "content": r.text, "is_error": r.is_error}))
                    .collect(),
            ),
            Message::Assistant { text, calls } => {
                let mut b = Vec::new();
                if !text.is_empty() {
                    b.push(json!({"type": "text", "text": text}));
                }
                for c in calls {
                    let input = if c.arguments.is_object() { c.arguments.clone() } else { json!({}) };
                    b.push(json!({"type": "tool_use", "id": c.id, "name": c.name, "input": input}));
                }
                ("assistant", b)
            }
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some((r, existing)) if *r == role => {
                // Tool results must lead a user message.
                let (mut results, mut rest): (Vec<Value>, Vec<Value>) = std::mem::take(existing)
                    .into_iter()
                    .chain(blocks)
                    .partition(|b| b["type"] == "tool_result");
                results.append(&mut rest);
                *existing = results;
            }
            _ => out.push((role, blocks)),
        }
    }
    out.into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect()
}

/// The streamed request body.
pub fn body(model: &str, req: &Request) -> Value {
    let mut b = json!({
        "model": model,
        "max_tokens": req.max_tokens,
        "messages": messages(&req.messages),
        "stream": true,
    });
    if !req.system.is_empty() {
        b["system"] = json!(req.system);
    }
    if !req.tools.is_empty() {
        b["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
    }
    b
}

#[derive(Debug)]
enum Block {
    Text,
    Tool {
        id: String,
        name: String,
        json: String,
    },
}

/// Decodes `message_start` … `message_stop`.
#[derive(Debug, Default)]
pub struct Decoder {
    blocks: std::collections::BTreeMap<u64, Block>,
    usage: Usage,
    stop: Option<StopReason>,
    done: bool,
}

impl Decoder {
    /// One event in, what it completes out.
    pub fn event(&mut self, e: &SseEvent) -> Result<Vec<Event>, ModelError> {
        let v: Value = serde_json::from_str(&e.data)
            .map_err(|err| ModelError::Decode(format!("an event is not JSON: {err}")))?;
        let kind = v["type"].as_str().or(e.event.as_deref()).unwrap_or("");
        let index = v["index"].as_u64().unwrap_or(0);
        let mut out = Vec::new();
        match kind {
            "message_start" => {
                let u = &v["message"]["usage"];
                self.usage.input_tokens = u["input_tokens"].as_u64().unwrap_or(0);
                self.usage.output_tokens = u["output_tokens"].as_u64().unwrap_or(0);
            }
            "content_block_start" => {
                let b = &v["content_block"];
                let block = match b["type"].as_str() {
                    Some("tool_use") => Block::Tool {
                        id: b["id"].as_str().unwrap_or_default().to_owned(),
                        name: b["name"].as_str().unwrap_or_default().to_owned(),
                        json: String::new(),
                    },
                    _ => {
                        if let Some(t) = b["text"].as_str().filter(|t| !t.is_empty()) {
                            out.push(Event::Text(t.to_owned()));
                        }
                        Block::Text
                    }
                };
                self.blocks.insert(index, block);
            }
            "content_block_delta" => {
                let d = &v["delta"];
                match (d["type"].as_str(), self.blocks.get_mut(&index)) {
                    (Some("text_delta"), _) => {
                        if let Some(t) = d["text"].as_str().filter(|t| !t.is_empty()) {
                            out.push(Event::Text(t.to_owned()));
                        }
                    }
                    (Some("input_json_delta"), Some(Block::Tool { json, .. })) => {
                        json.push_str(d["partial_json"].as_str().unwrap_or(""));
                    }
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(Block::Tool { id, name, json }) = self.blocks.remove(&index) {
                    out.push(Event::ToolCall(ToolCall {
                        id,
                        name,
                        arguments: parse_arguments(&json),
                    }));
                }
            }
            "message_delta" => {
                if let Some(n) = v["usage"]["output_tokens"].as_u64() {
                    self.usage.output_tokens = n;
                }
                if let Some(n) = v["usage"]["input_tokens"].as_u64().filter(|n| *n > 0) {
                    self.usage.input_tokens = n;
                }
                if let Some(r) = v["delta"]["stop_reason"].as_str() {
                    self.stop = Some(stop_reason(r));
                }
            }
            "message_stop" => {
                self.done = true;
                out.push(Event::Usage(self.usage));
                out.push(Event::Stop(
                    self.stop.clone().unwrap_or(StopReason::EndTurn),
                ));
            }
            "error" => {
                return Err(ModelError::Stream(
                    v["error"]["message"]
                        .as_str()
                        .unwrap_or("the provider reported an error")
                        .to_owned(),
                ))
            }
            _ => {}
        }
        Ok(out)
    }

    /// Whether `message_stop` arrived.
    pub fn done(&self) -> bool {
        self.done
    }
}

/// Anthropic's stop reasons.
pub fn stop_reason(r: &str) -> StopReason {
    match r {
        "end_turn" | "stop_sequence" => StopReason::EndTurn,
        "tool_use" => StopReason::ToolUse,
        "max_tokens" => StopReason::MaxTokens,
        "refusal" => StopReason::Refusal,
        other => StopReason::Other(other.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::types::ToolResult;

    fn ev(data: Value) -> SseEvent {
        SseEvent {
            event: None,
            data: data.to_string(),
        }
    }

    #[test]
    fn a_tool_use_stream_decodes() {
        let mut d = Decoder::default();
        let mut all = Vec::new();
        for e in [
            json!({"type": "message_start", "message": {"usage": {"input_tokens": 10, "output_tokens": 1}}}),
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}}),
            json!({"type": "content_block_stop", "index": 0}),
            json!({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "echo", "input": {}}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "{\"a\":"}}),
            json!({"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": "1}"}}),
            json!({"type": "content_block_stop", "index": 1}),
            json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 7}}),
            json!({"type": "message_stop"}),
        ] {
            all.extend(d.event(&ev(e)).unwrap());
        }
        assert_eq!(
            all,
            vec![
                Event::Text("Hi".into()),
                Event::ToolCall(ToolCall {
                    id: "t1".into(),
                    name: "echo".into(),
                    arguments: json!({"a": 1})
                }),
                Event::Usage(Usage {
                    input_tokens: 10,
                    output_tokens: 7
                }),
                Event::Stop(StopReason::ToolUse),
            ]
        );
        assert!(d.done());
    }

    #[test]
    fn results_lead_a_merged_user_message() {
        let m = messages(&[
            Message::User(vec![Part::Text("q".into())]),
            Message::Assistant {
                text: String::new(),
                calls: vec![ToolCall {
                    id: "t".into(),
                    name: "n".into(),
                    arguments: json!({}),
                }],
            },
            Message::Tool(vec![ToolResult {
                call_id: "t".into(),
                text: "cancelled".into(),
                is_error: true,
            }]),
            Message::User(vec![Part::Text("next".into())]),
        ]);
        assert_eq!(m.len(), 3);
        assert_eq!(m[2]["content"][0]["type"], "tool_result");
        assert_eq!(m[2]["content"][1]["text"], "next");
    }
}
