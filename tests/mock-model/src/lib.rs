//! The scripted model endpoint the real Agent CLIs talk to in tests: one loopback HTTP server.
//!
//! `POST /v1/messages` (Anthropic, SSE and JSON), `POST /v1/responses` (OpenAI Responses, SSE
//! and JSON), `POST /v1/chat/completions`, `POST /v1/messages/count_tokens` and `GET /v1/models`.
//! Replies follow the conversation state in the request (never the request order): the newest
//! typed user text picks a directive (see [`script`]), a trailing tool result answers
//! `FINAL: tool said: <output>`. Every request is logged (path, headers, body) to a JSONL file and
//! kept in memory. A deny-all proxy on a second port logs each `CONNECT host:port` it refuses.

mod anthropic;
mod http;
pub mod isolation;
mod openai;
mod proxy;
pub mod script;

use serde_json::{json, Value};
use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

/// What the fixture has seen: requests to the model and attempts through the proxy.
#[derive(Default)]
pub(crate) struct Seen {
    pub requests: Vec<Value>,
    pub connects: Vec<String>,
    pub log: Option<PathBuf>,
    /// How often each `[[flaky: N]]` text has been asked.
    pub flaky: std::collections::HashMap<String, u32>,
    /// Each streamed text delta when it was written (for latency benchmarks).
    pub emitted: Vec<(std::time::Instant, String)>,
}

pub(crate) type Shared = Arc<Mutex<Seen>>;

pub(crate) fn lock(seen: &Shared) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A running fixture; its threads end with the test process.
pub struct MockModel {
    port: u16,
    proxy_port: u16,
    seen: Shared,
}

impl MockModel {
    /// Starts the model endpoint and the proxy on `127.0.0.1:0`, logging requests to
    /// `dir/model-requests.jsonl`.
    pub fn start(dir: &Path) -> std::io::Result<MockModel> {
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let port = listener.local_addr()?.port();
        let proxy = TcpListener::bind("127.0.0.1:0")?;
        let proxy_port = proxy.local_addr()?.port();
        let seen: Shared = Arc::new(Mutex::new(Seen {
            log: Some(dir.join("model-requests.jsonl")),
            ..Seen::default()
        }));
        let s = seen.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let s = s.clone();
                std::thread::spawn(move || http::serve(stream, &s));
            }
        });
        let s = seen.clone();
        std::thread::spawn(move || proxy::run(proxy, &s));
        Ok(MockModel {
            port,
            proxy_port,
            seen,
        })
    }

    /// The port of the model endpoint.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// `http://127.0.0.1:PORT` (Anthropic's base URL; OpenAI's is this plus `/v1`).
    pub fn base_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// `http://127.0.0.1:PORT` of the deny-all proxy.
    pub fn proxy_url(&self) -> String {
        format!("http://127.0.0.1:{}", self.proxy_port)
    }

    /// Every request so far: `{method, path, headers, body}`.
    pub fn requests(&self) -> Vec<Value> {
        lock(&self.seen).requests.clone()
    }

    /// Waits until no request has arrived for `quiet` (at most `max` in all) and returns how many
    /// there were: a CLI's own side requests (a title, a quota check) may follow a turn's end.
    pub fn settled(&self, quiet: std::time::Duration, max: std::time::Duration) -> usize {
        let start = std::time::Instant::now();
        let mut count = self.requests().len();
        let mut since = std::time::Instant::now();
        while since.elapsed() < quiet && start.elapsed() < max {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let now = self.requests().len();
            if now != count {
                count = now;
                since = std::time::Instant::now();
            }
        }
        count
    }

    /// The `host:port` of every CONNECT (or absolute-URL request) the proxy refused.
    pub fn connect_attempts(&self) -> Vec<String> {
        lock(&self.seen).connects.clone()
    }

    /// Every streamed text delta with the instant it was written to the CLI's connection.
    pub fn emitted(&self) -> Vec<(std::time::Instant, String)> {
        lock(&self.seen).emitted.clone()
    }

    /// The `user-agent` headers of the model requests, in order.
    pub fn user_agents(&self) -> Vec<String> {
        self.requests()
            .iter()
            .filter_map(|r| r["headers"]["user-agent"].as_str().map(str::to_string))
            .collect()
    }
}

/// Whether this ask of a `[[flaky: N]]` text fails (the first `n` asks of the same text do).
pub(crate) fn flaky_fails(seen: &Shared, text: &str, n: u32) -> bool {
    let mut seen = lock(seen);
    let count = seen.flaky.entry(text.to_string()).or_insert(0);
    *count += 1;
    *count <= n
}

/// A fresh number for message, item and call ids.
pub(crate) fn next_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

pub(crate) fn record(
    seen: &Shared,
    method: &str,
    path: &str,
    headers: &[(String, String)],
    body: &[u8],
) {
    let headers: serde_json::Map<String, Value> = headers
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    let body = serde_json::from_slice::<Value>(body)
        .unwrap_or_else(|_| Value::String(String::from_utf8_lossy(body).into_owned()));
    let entry = json!({"method": method, "path": path, "headers": headers, "body": body});
    let mut seen = lock(seen);
    if let Some(log) = &seen.log {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = writeln!(f, "{entry}");
        }
    }
    seen.requests.push(entry);
}
