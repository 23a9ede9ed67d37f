//! One provider client: sends a request, streams its answer as [`Event`]s from a task that
//! dies with the [`ModelStream`] (dropping it cancels the request), and sends a failed request
//! again a bounded number of times, announcing each retry, never once an answer has begun.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;

use super::config::{Api, ModelConfig};
use super::credentials::ApiKey;
use super::error::{describe, message_of, ModelError};
use super::sse::SseParser;
use super::types::{Event, Message, Part, Request, Retry, StopReason, Usage};
use super::{anthropic, chat, responses};

/// The longest silence while an answer streams.
pub const READ_TIMEOUT: Duration = Duration::from_secs(300);
/// The longest wait for a connection.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The longest wait a provider's `retry-after` may ask for.
pub const MAX_RETRY_WAIT: Duration = Duration::from_secs(60);

#[derive(Debug)]
struct Inner {
    cfg: ModelConfig,
    key: Option<ApiKey>,
    http: reqwest::Client,
}

/// A model provider client (cheap to clone).
#[derive(Debug, Clone)]
pub struct ModelClient {
    inner: Arc<Inner>,
}

/// A streaming answer. Dropping it cancels the request.
#[derive(Debug)]
pub struct ModelStream {
    rx: mpsc::UnboundedReceiver<Result<Event, ModelError>>,
    task: tokio::task::JoinHandle<()>,
    sent: Arc<std::sync::OnceLock<std::time::Instant>>,
}

impl Drop for ModelStream {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl ModelStream {
    /// The next event; `None` after `Stop` or an error.
    pub async fn next(&mut self) -> Option<Result<Event, ModelError>> {
        self.rx.recv().await
    }

    /// When the request (its body encoded) was first handed to the connection.
    pub fn sent_at(&self) -> Option<std::time::Instant> {
        self.sent.get().copied()
    }
}

enum Decoder {
    Anthropic(anthropic::Decoder),
    Responses(responses::Decoder),
    Chat(chat::Decoder),
}

impl Decoder {
    fn new(api: Api) -> Self {
        match api {
            Api::Anthropic => Decoder::Anthropic(anthropic::Decoder::default()),
            Api::Responses => Decoder::Responses(responses::Decoder::default()),
            Api::Chat => Decoder::Chat(chat::Decoder::default()),
        }
    }

    fn event(&mut self, e: &super::sse::SseEvent) -> Result<Vec<Event>, ModelError> {
        match self {
            Decoder::Anthropic(d) => d.event(e),
            Decoder::Responses(d) => d.event(e),
            Decoder::Chat(d) => d.event(e),
        }
    }

    fn finish(&mut self) -> Vec<Event> {
        match self {
            Decoder::Chat(d) => d.finish(),
            _ => Vec::new(),
        }
    }

    fn done(&self) -> bool {
        match self {
            Decoder::Anthropic(d) => d.done(),
            Decoder::Responses(d) => d.done(),
            Decoder::Chat(d) => d.done(),
        }
    }
}

/// A failed attempt and the wait the provider asked for, if it named one.
type Failure = (ModelError, Option<Duration>);

impl ModelClient {
    /// A client for `cfg` with `key` (`None` for a server that needs none).
    pub fn new(cfg: ModelConfig, key: Option<ApiKey>) -> Result<Self, ModelError> {
        crate::client::http::ensure_tls();
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT_TIMEOUT)
            .read_timeout(READ_TIMEOUT)
            // The key must not follow a redirect to another origin.
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| ModelError::Connect {
                url: cfg.base_url.clone(),
                reason: describe(&e),
            })?;
        Ok(Self {
            inner: Arc::new(Inner { cfg, key, http }),
        })
    }

    /// The configuration in force.
    pub fn config(&self) -> &ModelConfig {
        &self.inner.cfg
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.inner.cfg.model
    }

    fn url(&self) -> String {
        let base = &self.inner.cfg.base_url;
        match self.inner.cfg.api {
            Api::Anthropic => anthropic::url(base),
            Api::Responses => responses::url(base),
            Api::Chat => chat::url(base),
        }
    }

    fn authorized(&self, req: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
        let req = match self.inner.cfg.api {
            Api::Anthropic => req.header("anthropic-version", "2023-06-01"),
            _ => req,
        };
        match (&self.inner.key, self.inner.cfg.api) {
            (None, _) => req,
            (Some(k), Api::Anthropic) => req.header("x-api-key", k.expose()),
            (Some(k), _) => req.bearer_auth(k.expose()),
        }
    }

    /// Starts a request (its body is encoded now, so the caller keeps `req`); the answer
    /// arrives on the returned stream.
    pub fn stream(&self, req: &Request) -> ModelStream {
        let (tx, rx) = mpsc::unbounded_channel();
        let cfg = &self.inner.cfg;
        let body = match cfg.api {
            Api::Anthropic => anthropic::body(&cfg.model, req),
            Api::Responses => responses::body(&cfg.model, req),
            Api::Chat => chat::body(&cfg.model, req),
        };
        let body = serde_json::to_vec(&body).map_err(|e| ModelError::Decode(e.to_string()));
        let client = self.clone();
        let sent = Arc::new(std::sync::OnceLock::new());
        let mark = Arc::clone(&sent);
        let task = tokio::spawn(async move {
            match body {
                Ok(body) => client.run(&body, tx, &mark).await,
                Err(e) => {
                    let _ = tx.send(Err(e));
                }
            }
        });
        ModelStream { rx, task, sent }
    }

    async fn run(
        &self,
        body: &[u8],
        tx: mpsc::UnboundedSender<Result<Event, ModelError>>,
        sent: &std::sync::OnceLock<std::time::Instant>,
    ) {
        let cfg = &self.inner.cfg;
        let mut attempt = 0;
        sent.get_or_init(std::time::Instant::now);
        loop {
            match self.send(body).await {
                Ok(resp) => {
                    self.decode(resp, &tx).await;
                    return;
                }
                Err((e, hint)) if e.retryable() && attempt < cfg.max_retries => {
                    attempt += 1;
                    let wait = hint.unwrap_or_else(|| backoff(cfg.retry_base_ms, attempt));
                    tracing::info!(target: "rho::model", attempt, of = cfg.max_retries, wait_ms = wait.as_millis() as u64, error = %e, "model request failed; retrying");
                    let _ = tx.send(Ok(Event::Retrying(Retry {
                        attempt,
                        of: cfg.max_retries,
                        wait_ms: wait.as_millis() as u64,
                        reason: e.to_string(),
                    })));
                    tokio::time::sleep(wait).await;
                }
                Err((e, _)) => {
                    tracing::info!(target: "rho::model", error = %e, "model request failed");
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
    }

    /// One attempt: the response when the status is a success.
    async fn send(&self, body: &[u8]) -> Result<reqwest::Response, Failure> {
        let url = self.url();
        let req = self
            .inner
            .http
            .post(&url)
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .body(body.to_vec());
        let resp = self.authorized(req).send().await.map_err(|e| {
            (
                ModelError::Connect {
                    url: url.clone(),
                    reason: describe(&e),
                },
                None,
            )
        })?;
        let status = resp.status();
        if status.is_success() {
            return Ok(resp);
        }
        let hint = retry_after(resp.headers());
        let bytes = read_capped(resp, 64 * 1024).await;
        Err((
            ModelError::Http {
                status: status.as_u16(),
                message: message_of(&bytes),
            },
            hint,
        ))
    }

    async fn decode(
        &self,
        mut resp: reqwest::Response,
        tx: &mpsc::UnboundedSender<Result<Event, ModelError>>,
    ) {
        let mut parser = SseParser::default();
        let mut decoder = Decoder::new(self.inner.cfg.api);
        let send_all = |events: Vec<Event>| {
            for e in events {
                if tx.send(Ok(e)).is_err() {
                    return false;
                }
            }
            true
        };
        loop {
            let chunk = match resp.chunk().await {
                Ok(Some(c)) => c,
                Ok(None) => break,
                Err(e) => {
                    let _ = tx.send(Err(ModelError::Stream(describe(&e))));
                    return;
                }
            };
            let records = match parser.feed(&chunk) {
                Ok(r) => r,
                Err(e) => {
                    let _ = tx.send(Err(ModelError::Decode(e)));
                    return;
                }
            };
            for r in records {
                match decoder.event(&r) {
                    Ok(events) => {
                        if !send_all(events) {
                            return;
                        }
                    }
                    Err(e) => {
                        let _ = tx.send(Err(e));
                        return;
                    }
                }
                if decoder.done() {
                    return;
                }
            }
        }
        if let Some(r) = parser.finish() {
            match decoder.event(&r) {
                Ok(events) => {
                    send_all(events);
                }
                Err(e) => {
                    let _ = tx.send(Err(e));
                    return;
                }
            }
        }
        if !decoder.done() {
            let events = decoder.finish();
            if !events.is_empty() {
                send_all(events);
                return;
            }
            let _ = tx.send(Err(ModelError::Stream(
                "the answer ended before it was complete".to_owned(),
            )));
        }
    }

    /// A one-shot completion (a system prompt and one user turn, no tools): the text and usage.
    pub async fn complete(
        &self,
        system: Option<String>,
        user: String,
    ) -> Result<(String, Usage), ModelError> {
        let mut stream = self.stream(&Request {
            system: system.unwrap_or_default(),
            messages: vec![Message::User(vec![Part::Text(user)])],
            tools: Vec::new(),
            max_tokens: self.inner.cfg.max_tokens,
        });
        let mut text = String::new();
        let mut usage = Usage::default();
        while let Some(e) = stream.next().await {
            match e? {
                Event::Text(t) => text.push_str(&t),
                Event::Usage(u) => usage = u,
                Event::Stop(StopReason::Refusal) => {
                    return Err(ModelError::Stream("the model refused".to_owned()))
                }
                Event::Stop(_) => break,
                Event::ToolCall(_) | Event::Retrying(_) => {}
            }
        }
        Ok((text, usage))
    }

    /// Whether the provider answers its model list with this key (`/doctor`).
    pub async fn check(&self) -> Result<(), ModelError> {
        let base = &self.inner.cfg.base_url;
        let url = match self.inner.cfg.api {
            Api::Anthropic => format!("{base}/v1/models"),
            _ => format!("{base}/models"),
        };
        let req = self.inner.http.get(&url).timeout(CONNECT_TIMEOUT);
        let resp = self
            .authorized(req)
            .send()
            .await
            .map_err(|e| ModelError::Connect {
                url: url.clone(),
                reason: describe(&e),
            })?;
        let status = resp.status();
        if status.is_success() {
            return Ok(());
        }
        let bytes = read_capped(resp, 64 * 1024).await;
        Err(ModelError::Http {
            status: status.as_u16(),
            message: message_of(&bytes),
        })
    }
}

/// `base * 2^(attempt-1)`, at most [`MAX_RETRY_WAIT`].
fn backoff(base_ms: u64, attempt: u32) -> Duration {
    let ms = base_ms.saturating_mul(1u64 << attempt.saturating_sub(1).min(16));
    Duration::from_millis(ms).min(MAX_RETRY_WAIT)
}

/// `retry-after-ms`, else `retry-after` in seconds, at most [`MAX_RETRY_WAIT`].
fn retry_after(h: &reqwest::header::HeaderMap) -> Option<Duration> {
    let num = |name: &str| {
        h.get(name)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().parse::<f64>().ok())
            .filter(|v| v.is_finite() && *v >= 0.0)
    };
    let wait = num("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms / 1000.0))
        .or_else(|| num("retry-after").map(Duration::from_secs_f64))?;
    Some(wait.min(MAX_RETRY_WAIT))
}

async fn read_capped(mut resp: reqwest::Response, max: usize) -> Vec<u8> {
    let mut out = Vec::new();
    while let Ok(Some(c)) = resp.chunk().await {
        out.extend_from_slice(&c);
        if out.len() >= max {
            out.truncate(max);
            break;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_double_and_honour_the_provider() {
        assert_eq!(backoff(500, 1), Duration::from_millis(500));
        assert_eq!(backoff(500, 3), Duration::from_millis(2000));
        assert_eq!(backoff(500, 30), MAX_RETRY_WAIT);
        let mut h = reqwest::header::HeaderMap::new();
        h.insert("retry-after", "2".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(2)));
        h.insert("retry-after-ms", "20".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_millis(20)));
    }
}
