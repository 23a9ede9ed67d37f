//! Server log messages reach tracing under `rho::mcp::server` with the server identity, via
//! `logging/setLevel` (2025-11-25) or the per-request `_meta` level (2026-07-28).

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, StartOptions};
use serde_json::json;

use crate::peers::{everything, fixture, python, q};

#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Captured {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

fn capture() -> (Captured, tracing::subscriber::DefaultGuard) {
    let cap = Captured::default();
    let writer = cap.clone();
    let sub = tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .with_max_level(tracing::Level::DEBUG)
        .finish();
    (cap, tracing::subscriber::set_default(sub))
}

/// Waits for a protocol log line (not forwarded stderr) under `rho::mcp::server` that
/// contains `needle`.
async fn wait_for(cap: &Captured, needle: &str, secs: u64) -> bool {
    for _ in 0..secs * 10 {
        if cap
            .text()
            .lines()
            .any(|l| l.contains("rho::mcp::server") && l.contains(needle) && !l.contains("stderr="))
        {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test]
async fn legacy_server_logs_after_set_level() {
    let (cap, _g) = capture();
    let text = format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\nlog_level = \"debug\"\n",
        q(&everything())
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let tool = rt
        .registry()
        .exported_for("ev", "toggle-simulated-logging")
        .unwrap()
        .to_owned();
    rt.call(&tool, None, CallContext::default()).await.unwrap();
    // The server logs at a random level every 5 seconds; debug lets all of them through.
    let seen = wait_for(&cap, "server=\"ev\"", 15).await || wait_for(&cap, "server=ev", 1).await;
    assert!(seen, "no server log captured: {}", cap.text());
    rt.shutdown().await;
}

#[tokio::test]
async fn modern_server_logs_with_per_request_level() {
    let (cap, _g) = capture();
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nlog_level = \"info\"\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("modern_server.py")),
        q(&dir.path().join("events"))
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    rt.call(
        "mcp__py__echo",
        json!({"text": "loggable"}).as_object().cloned(),
        CallContext::default(),
    )
    .await
    .unwrap();
    assert!(
        wait_for(&cap, "echoing loggable", 5).await,
        "{}",
        cap.text()
    );
    let out = cap.text();
    let line = out
        .lines()
        .find(|l| l.contains("rho::mcp::server") && l.contains("echoing loggable"))
        .unwrap();
    assert!(
        line.contains("INFO") && line.contains("rho::mcp::server"),
        "{line}"
    );
    rt.shutdown().await;
}
