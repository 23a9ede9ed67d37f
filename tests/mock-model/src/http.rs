//! A minimal HTTP/1.1 server side: one request per connection, JSON or SSE replies, then close.

use crate::{anthropic, openai, record, Shared};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One server-sent event, written after waiting `delay_ms`.
pub(crate) struct Event {
    pub name: Option<&'static str>,
    pub data: String,
    pub delay_ms: u64,
}

impl Event {
    /// A named event whose data carries the same `type`.
    pub(crate) fn typed(name: &'static str, mut data: Value) -> Event {
        data["type"] = json!(name);
        Event {
            name: Some(name),
            data: data.to_string(),
            delay_ms: 0,
        }
    }

    /// An unnamed event (Chat Completions chunks).
    pub(crate) fn data(data: String) -> Event {
        Event {
            name: None,
            data,
            delay_ms: 0,
        }
    }

    /// The same event, written after `ms`.
    pub(crate) fn after(mut self, ms: u64) -> Event {
        self.delay_ms = ms;
        self
    }
}

/// What the model answers.
pub(crate) enum Reply {
    Json(u16, Value),
    Sse(Vec<Event>),
}

/// A request's method, path, lowercased headers and body.
type Request = (String, String, Vec<(String, String)>, Vec<u8>);

fn read_request(stream: &TcpStream) -> std::io::Result<Request> {
    let mut r = BufReader::new(stream);
    let mut line = String::new();
    r.read_line(&mut line)?;
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if r.read_line(&mut h)? == 0 || h.trim().is_empty() {
            break;
        }
        if let Some((k, v)) = h.split_once(':') {
            headers.push((k.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let header = |name: &str| {
        headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if let Some(len) = header("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        r.read_exact(&mut body)?;
    } else if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        loop {
            let mut size = String::new();
            r.read_line(&mut size)?;
            let n = usize::from_str_radix(size.trim().split(';').next().unwrap_or("0"), 16)
                .unwrap_or(0);
            let mut chunk = vec![0; n + 2];
            r.read_exact(&mut chunk)?;
            if n == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..n]);
        }
    }
    Ok((method, path, headers, body))
}

fn route(method: &str, path: &str, body: &Value, seen: &Shared) -> Reply {
    let path = path.split('?').next().unwrap_or_default();
    match (method, path) {
        ("GET", "/v1/models") => Reply::Json(
            200,
            json!({"object": "list", "data": [{"id": "mock-model", "object": "model", "type": "model", "display_name": "Mock", "created_at": "2026-01-01T00:00:00Z"}], "has_more": false}),
        ),
        ("POST", "/v1/messages/count_tokens") => Reply::Json(200, json!({"input_tokens": 12})),
        ("POST", "/v1/messages") => anthropic::reply(body, seen),
        ("POST", "/v1/responses") => openai::responses(body, seen),
        ("POST", "/v1/chat/completions") => openai::chat(body, seen),
        _ => Reply::Json(
            404,
            json!({"error": {"type": "not_found", "message": format!("no route {method} {path}")}}),
        ),
    }
}

/// Serves one connection: reads one request, logs it, writes the scripted reply, closes.
pub(crate) fn serve(mut stream: TcpStream, seen: &Shared) {
    let Ok((method, path, headers, body)) = read_request(&stream) else {
        return;
    };
    record(seen, &method, &path, &headers, &body);
    let value: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let _ = match route(&method, &path, &value, seen) {
        Reply::Json(status, v) => {
            let text = v.to_string();
            // A scripted overload (`[[flaky: N]]`) says when to come back, briefly.
            let retry = if status == 503 {
                "retry-after-ms: 20\r\n"
            } else {
                ""
            };
            write!(
                stream,
                "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nrequest-id: req_mock\r\n{retry}connection: close\r\n\r\n{text}",
                text.len()
            )
        }
        Reply::Sse(events) => write_sse(&mut stream, events, seen),
    };
    let _ = stream.flush();
}

/// The text a streamed event carries (Anthropic's `text_delta`, OpenAI's `output_text.delta`).
fn delta_text(data: &str) -> Option<String> {
    let v: Value = serde_json::from_str(data).ok()?;
    v["delta"]["text"]
        .as_str()
        .or_else(|| (v["type"] == "response.output_text.delta").then(|| v["delta"].as_str())?)
        .map(str::to_string)
}

fn write_sse(stream: &mut TcpStream, events: Vec<Event>, seen: &Shared) -> std::io::Result<()> {
    write!(
        stream,
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nrequest-id: req_mock\r\nconnection: close\r\n\r\n"
    )?;
    stream.flush()?;
    for e in events {
        if e.delay_ms > 0 {
            std::thread::sleep(Duration::from_millis(e.delay_ms));
        }
        if let Some(name) = e.name {
            writeln!(stream, "event: {name}")?;
        }
        write!(stream, "data: {}\n\n", e.data)?;
        stream.flush()?;
        if let Some(text) = delta_text(&e.data) {
            crate::lock(seen)
                .emitted
                .push((std::time::Instant::now(), text));
        }
    }
    Ok(())
}
