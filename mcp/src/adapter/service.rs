//! The adapter's HTTP calls to the Rho service with the grant's token: one `POST
//! /api/v2/{operation}` per call, never retried once it may have been delivered. Any failure
//! re-reads the connection file (a port change rewrites its URL); only a request that never
//! connected is sent once more, to the new URL.

use std::path::PathBuf;
use std::sync::RwLock;
use std::time::Duration;

use serde_json::Value;

use super::connection::{self, Connection};

/// The longest silence while waiting for (a part of) a reply.
pub const READ_TIMEOUT: Duration = Duration::from_secs(300);

/// What came of one request.
#[derive(Debug)]
pub enum Outcome {
    /// The service answered with an envelope.
    Reply(Value),
    /// The request never reached the service (nothing ran).
    NotDelivered(String),
    /// The request may have reached the service but no reply arrived: the outcome is unknown.
    Lost(String),
    /// The reply is larger than the allowed bytes (the operation ran).
    TooLarge(u64),
}

/// The service as the adapter reaches it.
#[derive(Debug)]
pub struct ServiceClient {
    file: PathBuf,
    conn: RwLock<Connection>,
    http: reqwest::Client,
}

impl ServiceClient {
    /// A client for the connection read from `file`.
    pub fn new(file: PathBuf, conn: Connection) -> Result<Self, reqwest::Error> {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(3))
            .pool_idle_timeout(Duration::from_secs(30))
            // A peer that accepts and never answers (another program on an old port) must not
            // hang a tool call forever; service operations answer long before this.
            .read_timeout(READ_TIMEOUT)
            .no_proxy()
            .build()?;
        Ok(Self {
            file,
            conn: RwLock::new(conn),
            http,
        })
    }

    /// The current connection (after any re-read).
    pub fn connection(&self) -> Connection {
        self.conn
            .read()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Re-reads the connection file; true when its URL or token changed.
    fn reread(&self) -> bool {
        match connection::read(&self.file) {
            Ok(fresh) => {
                let mut cur = self
                    .conn
                    .write()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                let changed = fresh.url != cur.url || fresh.token != cur.token;
                if changed {
                    tracing::info!(target: "rho::mcp::adapter", url = %fresh.url, "connection file changed; using it");
                    *cur = fresh;
                }
                changed
            }
            Err(e) => {
                tracing::warn!(target: "rho::mcp::adapter", error = %e, "cannot re-read the connection file");
                false
            }
        }
    }

    /// `POST /api/v2/{operation}` with `body`, the grant's token and, when given, the
    /// `Rho-Contract` precondition. Replies over `max_reply` bytes are not read.
    pub async fn post(
        &self,
        operation: &str,
        body: &Value,
        contract: Option<&str>,
        max_reply: u64,
    ) -> Outcome {
        let payload = match serde_json::to_vec(body) {
            Ok(p) => p,
            Err(e) => return Outcome::NotDelivered(e.to_string()),
        };
        let mut reread = false;
        loop {
            let conn = self.connection();
            let url = format!("{}/api/v2/{operation}", conn.url.trim_end_matches('/'));
            let mut req = self
                .http
                .post(&url)
                .bearer_auth(&conn.token)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(payload.clone());
            if let Some(hash) = contract {
                req = req.header("Rho-Contract", hash);
            }
            let outcome = match req.send().await {
                Ok(resp) => read_reply(resp, max_reply).await,
                Err(e) if e.is_connect() || e.is_builder() => Outcome::NotDelivered(describe(&e)),
                Err(e) => Outcome::Lost(describe(&e)),
            };
            match outcome {
                Outcome::Reply(_) | Outcome::TooLarge(_) => return outcome,
                // Not connected: nothing was delivered. A moved service rewrote the file.
                Outcome::NotDelivered(_) if !reread && self.reread() => {
                    reread = true;
                }
                // Maybe delivered: never sent again, but the next call uses a moved service.
                Outcome::Lost(_) => {
                    self.reread();
                    return outcome;
                }
                Outcome::NotDelivered(_) => return outcome,
            }
        }
    }
}

fn describe(e: &reqwest::Error) -> String {
    // reqwest's Display includes the URL (no credentials in it); keep the source chain short.
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

async fn read_reply(mut resp: reqwest::Response, max: u64) -> Outcome {
    if resp.content_length().is_some_and(|n| n > max) {
        return Outcome::TooLarge(resp.content_length().unwrap_or(max));
    }
    let mut bytes: Vec<u8> = Vec::new();
    loop {
        match resp.chunk().await {
            Ok(Some(chunk)) => {
                if bytes.len() as u64 + chunk.len() as u64 > max {
                    return Outcome::TooLarge(bytes.len() as u64 + chunk.len() as u64);
                }
                bytes.extend_from_slice(&chunk);
            }
            Ok(None) => break,
            Err(e) => return Outcome::Lost(describe(&e)),
        }
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) if v.get("ok").and_then(Value::as_bool).is_some() => Outcome::Reply(v),
        _ => Outcome::Lost(format!(
            "the service answered HTTP {} without an envelope",
            resp.status().as_u16()
        )),
    }
}
