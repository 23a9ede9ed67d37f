//! A minimal HTTP/1.1 client for the CLI's calls to a running service (`rho --pair`), over loopback only.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A call to the service could not be made or was refused.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CallError {
    #[error("the service at {0} is not running (start it with `rho`)")]
    NotRunning(String),
    #[error("{0}")]
    Refused(String),
    #[error("unexpected reply from the service: {0}")]
    Protocol(String),
}

/// POSTs `/api/v2/{operation}` with the bearer token; returns the envelope's `value`.
pub(crate) fn call(
    url: &str,
    token: &str,
    operation: &str,
    body: &serde_json::Value,
) -> Result<serde_json::Value, CallError> {
    let authority = url
        .strip_prefix("http://")
        .map(|a| a.trim_end_matches('/'))
        .filter(|a| a.starts_with("127.0.0.1:") || a.starts_with("localhost:"))
        .ok_or_else(|| CallError::Protocol(format!("not a loopback service address: {url}")))?;
    let mut stream =
        TcpStream::connect(authority).map_err(|_| CallError::NotRunning(url.to_string()))?;
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let payload = serde_json::to_vec(body).map_err(|e| CallError::Protocol(e.to_string()))?;
    let head = format!(
        "POST /api/v2/{operation} HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Bearer {token}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        payload.len()
    );
    stream
        .write_all(head.as_bytes())
        .and_then(|()| stream.write_all(&payload))
        .map_err(|_| CallError::NotRunning(url.to_string()))?;
    let mut reply = Vec::new();
    stream
        .read_to_end(&mut reply)
        .map_err(|e| CallError::Protocol(e.to_string()))?;
    let split = reply
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .ok_or_else(|| CallError::Protocol("no HTTP header".into()))?;
    let head = String::from_utf8_lossy(&reply[..split]).to_lowercase();
    let mut body = reply[split + 4..].to_vec();
    if head.contains("transfer-encoding: chunked") {
        body = dechunk(&body);
    }
    let envelope: serde_json::Value =
        serde_json::from_slice(&body).map_err(|e| CallError::Protocol(format!("not JSON: {e}")))?;
    if envelope["ok"] == true {
        Ok(envelope["value"].clone())
    } else {
        let code = envelope["error"]["code"].as_str().unwrap_or("unknown");
        let message = envelope["error"]["message"].as_str().unwrap_or("");
        Err(CallError::Refused(format!("{code}: {message}")))
    }
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
