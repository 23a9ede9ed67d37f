//! OpenAI Responses: the request body (instructions, input items with function calls and their
//! outputs, function tools, streaming, nothing stored) and the decoder of its event stream.

use serde_json::{json, Value};

use super::error::ModelError;
use super::sse::SseEvent;
use super::types::{
    arguments_text, parse_arguments, Event, Message, Part, Request, StopReason, ToolCall, Usage,
};

/// `POST {base}/responses`.
pub fn url(base: &str) -> String {
    format!("{base}/responses")
}

/// The input items.
pub fn input(msgs: &[Message]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in msgs {
        match m {
            Message::User(parts) => {
                let content: Vec<Value> = parts
                    .iter()
                    .map(|p| match p {
                        Part::Text(t) => json!({"type": "input_text", "text": t}),
                        Part::Image { mime_type, data } => json!({"type": "input_image", "image_url": format!("data:{mime_type};base64,{data}")}),
                    })
                    .collect();
                if !content.is_empty() {
                    out.push(json!({"type": "message", "role": "user", "content": content}));
                }
            }
            Message::Assistant { text, calls } => {
                if !text.is_empty() {
                    out.push(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": text}]}));
                }
                for c in calls {
                    out.push(json!({"type": "function_call", "call_id": c.id, "name": c.name, "arguments": arguments_text(&c.arguments)}));
                }
            }
            Message::Tool(results) => {
                for r in results {
                    out.push(json!({"type": "function_call_output", "call_id": r.call_id, "output": r.text}));
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
        "input": input(&req.messages),
        "max_output_tokens": req.max_tokens,
        "stream": true,
        "store": false,
    });
    if !req.system.is_empty() {
        b["instructions"] = json!(req.system);
    }
    if !req.tools.is_empty() {
        b["tools"] = req
            .tools
            .iter()
            .map(|t| json!({"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema, "strict": false}))
            .collect();
    }
    b
}

/// Decodes `response.*` events up to `response.completed`.
#[derive(Debug, Default)]
pub struct Decoder {
    streamed: std::collections::HashSet<String>,
    calls: bool,
    done: bool,
}

impl Decoder {
    /// One event in, what it completes out.
    pub fn event(&mut self, e: &SseEvent) -> Result<Vec<Event>, ModelError> {
        let v: Value = serde_json::from_str(&e.data)
            .map_err(|err| ModelError::Decode(format!("an event is not JSON: {err}")))?;
        let kind = v["type"].as_str().or(e.event.as_deref()).unwrap_or("");
        let mut out = Vec::new();
        match kind {
            "response.output_text.delta" => {
                if let Some(id) = v["item_id"].as_str() {
                    self.streamed.insert(id.to_owned());
                }
                if let Some(t) = v["delta"].as_str().filter(|t| !t.is_empty()) {
                    out.push(Event::Text(t.to_owned()));
                }
            }
            "response.output_item.done" => {
                let item = &v["item"];
                match item["type"].as_str() {
                    Some("function_call") => {
                        self.calls = true;
                        out.push(Event::ToolCall(ToolCall {
                            id: item["call_id"].as_str().unwrap_or_default().to_owned(),
                            name: item["name"].as_str().unwrap_or_default().to_owned(),
                            arguments: parse_arguments(item["arguments"].as_str().unwrap_or("")),
                        }));
                    }
                    Some("message") => {
                        let id = item["id"].as_str().unwrap_or_default();
                        if !self.streamed.contains(id) {
                            let text: String = item["content"]
                                .as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(|c| c["text"].as_str().or(c["refusal"].as_str()))
                                .collect();
                            if !text.is_empty() {
                                out.push(Event::Text(text));
                            }
                        }
                    }
                    _ => {}
                }
            }
            "response.completed" | "response.incomplete" => {
                self.done = true;
                let r = &v["response"];
                out.push(Event::Usage(Usage {
                    input_tokens: r["usage"]["input_tokens"].as_u64().unwrap_or(0),
                    output_tokens: r["usage"]["output_tokens"].as_u64().unwrap_or(0),
                }));
                let stop = match r["incomplete_details"]["reason"].as_str() {
                    Some("max_output_tokens") => StopReason::MaxTokens,
                    Some("content_filter") => StopReason::Refusal,
                    Some(other) => StopReason::Other(other.to_owned()),
                    None if self.calls => StopReason::ToolUse,
                    None => StopReason::EndTurn,
                };
                out.push(Event::Stop(stop));
            }
            "response.failed" => {
                return Err(ModelError::Stream(
                    v["response"]["error"]["message"]
                        .as_str()
                        .unwrap_or("the response failed")
                        .to_owned(),
                ))
            }
            "error" => {
                return Err(ModelError::Stream(
                    v["message"]
                        .as_str()
                        .or(v["error"]["message"].as_str())
                        .unwrap_or("the provider reported an error")
                        .to_owned(),
                ))
            }
            _ => {}
        }
        Ok(out)
    }

    /// Whether `response.completed` arrived.
    pub fn done(&self) -> bool {
        self.done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(data: Value) -> SseEvent {
        SseEvent {
            event: None,
            data: data.to_string(),
        }
    }

    #[test]
    fn text_streams_once_and_calls_stop_for_tools() {
        let mut d = Decoder::default();
        let mut all = Vec::new();
        for e in [
            json!({"type": "response.output_text.delta", "item_id": "m1", "delta": "He"}),
            json!({"type": "response.output_text.delta", "item_id": "m1", "delta": "llo"}),
            json!({"type": "response.output_item.done", "item": {"type": "message", "id": "m1", "content": [{"type": "output_text", "text": "Hello"}]}}),
            json!({"type": "response.output_item.done", "item": {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{\"x\":2}"}}),
            json!({"type": "response.completed", "response": {"usage": {"input_tokens": 3, "output_tokens": 4}}}),
        ] {
            all.extend(d.event(&ev(e)).unwrap());
        }
        assert_eq!(all.len(), 5, "{all:?}");
        assert_eq!(
            all[2],
            Event::ToolCall(ToolCall {
                id: "c1".into(),
                name: "f".into(),
                arguments: json!({"x": 2})
            })
        );
        assert_eq!(all[4], Event::Stop(StopReason::ToolUse));
    }
}
