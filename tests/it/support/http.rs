//! The one HTTP client of the tests: a raw HTTP/1.1 request to 127.0.0.1 (each successful reply checked against its published schema), and the event stream (SSE).

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// One HTTP/1.1 request to 127.0.0.1:port; returns the status and the JSON body (Null if not JSON).
pub fn http(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, Value) {
    let (status, _, body) = http_raw(port, method, path, token, headers, body);
    (status, serde_json::from_slice(&body).unwrap_or(Value::Null))
}

/// Like [`http`], also returning the response head.
pub fn http_raw(
    port: u16,
    method: &str,
    path: &str,
    token: Option<&str>,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, Vec<u8>) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut req = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n", body.len());
    if let Some(t) = token {
        req.push_str(&format!("Authorization: Bearer {t}\r\n"));
    }
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(body);
    s.write_all(req.as_bytes()).unwrap();
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    let split = out
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or(out.len());
    let head = String::from_utf8_lossy(&out[..split]).to_string();
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    let mut body = out[(split + 4).min(out.len())..].to_vec();
    if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        body = dechunk(&body);
    }
    super::contract::check_reply(method, path, status, &body);
    (status, head, body)
}

fn dechunk(mut data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    while let Some(end) = data.windows(2).position(|w| w == b"\r\n") {
        let size =
            usize::from_str_radix(String::from_utf8_lossy(&data[..end]).trim(), 16).unwrap_or(0);
        if size == 0 {
            break;
        }
        let start = end + 2;
        out.extend_from_slice(&data[start..(start + size).min(data.len())]);
        data = &data[(start + size + 2).min(data.len())..];
    }
    out
}

/// One frame of the event stream: (`id`, `event`, `data`).
pub type Frame = (String, String, Value);

/// An open `GET /api/v2/events` stream, as the local browser. [`Events::open`] returns once the
/// service has subscribed it (its `: open` comment arrived), so nothing sent afterwards is missed:
/// open the stream first, then cause the events.
pub struct Events {
    lines: std::io::Lines<BufReader<TcpStream>>,
}

impl Events {
    /// Opens the stream of `query` (e.g. `?projectId=...`), resuming after `last_event_id`.
    /// Reads time out after 5 s, which ends the stream.
    pub fn open(port: u16, query: &str, last_event_id: Option<&str>) -> Events {
        let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(5)))
            .unwrap();
        let mut req = format!("GET /api/v2/events{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n");
        if let Some(id) = last_event_id {
            req.push_str(&format!("Last-Event-ID: {id}\r\n"));
        }
        req.push_str("\r\n");
        stream.write_all(req.as_bytes()).unwrap();
        let mut lines = BufReader::new(stream).lines();
        // The head, then the opening comment: the subscription exists (or the stream ended).
        for line in lines.by_ref() {
            match line {
                Ok(l) if l.starts_with(": open") => break,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        Events { lines }
    }

    /// The next frame; None when the stream ends or a read times out.
    pub fn next_frame(&mut self) -> Option<Frame> {
        let (mut id, mut event) = (String::new(), String::new());
        for line in self.lines.by_ref() {
            let Ok(line) = line else { return None };
            if let Some(v) = line.strip_prefix("id: ") {
                id = v.to_string();
            } else if let Some(v) = line.strip_prefix("event: ") {
                event = v.to_string();
            } else if let Some(v) = line.strip_prefix("data: ") {
                return Some((id, event, serde_json::from_str(v).unwrap_or_default()));
            }
        }
        None
    }

    /// Frames until `want` of them, a `gap` (which ends a stream), the end or a timeout.
    pub fn frames(mut self, want: usize) -> Vec<Frame> {
        let mut out = Vec::new();
        while out.len() < want {
            let Some(frame) = self.next_frame() else {
                break;
            };
            let gap = frame.1 == "gap";
            out.push(frame);
            if gap {
                break;
            }
        }
        out
    }

    /// The data of frames of `kind`, until `want` of them, the end or a timeout.
    pub fn of_kind(mut self, kind: &str, want: usize) -> Vec<Value> {
        let mut out = Vec::new();
        while out.len() < want {
            let Some((_, event, data)) = self.next_frame() else {
                break;
            };
            if event == kind {
                out.push(data);
            }
        }
        out
    }
}
