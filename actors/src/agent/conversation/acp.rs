//! A typed ACP v1 client connection: ndjson JSON-RPC 2.0 over an adapter's stdin/stdout.
//!
//! Requests are matched to responses by id; `session/update` notifications and the agent's
//! `session/request_permission` requests arrive on one [`Incoming`] channel in wire order; the
//! client methods Rho does not offer (`fs/*`, `terminal/*`) are refused with -32601. When the
//! adapter's stdout ends every pending request fails with [`AcpError::Transport`] and
//! [`Incoming::Closed`] is sent: nothing is retried.

use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};

/// Why an ACP call failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum AcpError {
    /// The adapter answered with a JSON-RPC error.
    #[error("the agent answered {method} with error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
        data: Value,
    },
    /// The adapter's pipes closed (it died or was killed) before the answer.
    #[error("the agent's connection closed before it answered {method}")]
    Transport { method: String },
}

/// What the adapter sends unasked.
#[derive(Debug, Clone)]
pub enum Incoming {
    /// A `session/update` notification.
    Update { session_id: String, update: Value },
    /// A `session/request_permission` request, to be answered with [`AcpConnection::respond`].
    Permission {
        request: Value,
        session_id: String,
        params: Value,
    },
    /// The adapter's stdout ended.
    Closed,
}

type Pending = Arc<Mutex<HashMap<u64, (String, oneshot::Sender<Result<Value, AcpError>>)>>>;

/// One connection to one adapter process.
pub struct AcpConnection {
    out: mpsc::UnboundedSender<String>,
    pending: Pending,
    next: AtomicU64,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AcpConnection {
    /// Connects over the adapter's pipes; the reader and writer run as tasks on the current
    /// runtime until the pipes close.
    pub fn connect(
        stdin: impl AsyncWrite + Unpin + Send + 'static,
        stdout: impl AsyncRead + Unpin + Send + 'static,
    ) -> (AcpConnection, mpsc::UnboundedReceiver<Incoming>) {
        let (out, mut out_rx) = mpsc::unbounded_channel::<String>();
        let (in_tx, in_rx) = mpsc::unbounded_channel();
        let pending: Pending = Arc::default();
        let mut stdin = stdin;
        tokio::spawn(async move {
            while let Some(line) = out_rx.recv().await {
                if stdin.write_all(line.as_bytes()).await.is_err()
                    || stdin.write_all(b"\n").await.is_err()
                    || stdin.flush().await.is_err()
                {
                    break;
                }
            }
        });
        let p = pending.clone();
        let refusals = out.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stdout).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let Ok(msg) = serde_json::from_str::<Value>(&line) else {
                    tracing::debug!(target: "rho::agent::acp", "ignored a line that is not JSON");
                    continue;
                };
                route(msg, &p, &in_tx, &refusals);
            }
            let waiting: Vec<_> = lock(&p).drain().collect();
            for (_, (method, tx)) in waiting {
                let _ = tx.send(Err(AcpError::Transport { method }));
            }
            let _ = in_tx.send(Incoming::Closed);
        });
        let conn = AcpConnection {
            out,
            pending,
            next: AtomicU64::new(1),
        };
        (conn, in_rx)
    }

    /// Sends a request and waits for its answer.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, AcpError> {
        let rx = self.start_request(method, params);
        rx.await.unwrap_or(Err(AcpError::Transport {
            method: method.to_string(),
        }))
    }

    /// Sends a request; the receiver gets its answer (used to wait for a prompt while its
    /// updates are handled).
    pub fn start_request(
        &self,
        method: &str,
        params: Value,
    ) -> oneshot::Receiver<Result<Value, AcpError>> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        lock(&self.pending).insert(id, (method.to_string(), tx));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        if self.out.send(line.to_string()).is_err() {
            if let Some((method, tx)) = lock(&self.pending).remove(&id) {
                let _ = tx.send(Err(AcpError::Transport { method }));
            }
        }
        rx
    }

    /// Sends a notification (`session/cancel`).
    pub fn notify(&self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        let _ = self.out.send(line.to_string());
    }

    /// Answers a request the agent sent (`request` is its id).
    pub fn respond(&self, request: &Value, result: Value) {
        let line = json!({"jsonrpc": "2.0", "id": request, "result": result});
        let _ = self.out.send(line.to_string());
    }
}

fn route(
    msg: Value,
    pending: &Pending,
    incoming: &mpsc::UnboundedSender<Incoming>,
    out: &mpsc::UnboundedSender<String>,
) {
    let method = msg["method"].as_str();
    let id = msg.get("id").cloned().filter(|v| !v.is_null());
    match (method, id) {
        (None, Some(id)) => {
            let Some(n) = id.as_u64() else { return };
            let Some((method, tx)) = lock(pending).remove(&n) else {
                return;
            };
            let answer = match msg.get("error") {
                Some(e) => Err(AcpError::Rpc {
                    method,
                    code: e["code"].as_i64().unwrap_or_default(),
                    message: e["message"].as_str().unwrap_or_default().to_string(),
                    data: e.get("data").cloned().unwrap_or(Value::Null),
                }),
                None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = tx.send(answer);
        }
        (Some("session/update"), None) => {
            let params = &msg["params"];
            let _ = incoming.send(Incoming::Update {
                session_id: params["sessionId"].as_str().unwrap_or_default().to_string(),
                update: params["update"].clone(),
            });
        }
        (Some("session/request_permission"), Some(id)) => {
            let params = msg["params"].clone();
            let _ = incoming.send(Incoming::Permission {
                request: id,
                session_id: params["sessionId"].as_str().unwrap_or_default().to_string(),
                params,
            });
        }
        (Some(other), Some(id)) => {
            let line = json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("Rho does not offer {other}")}});
            let _ = out.send(line.to_string());
        }
        _ => {}
    }
}
