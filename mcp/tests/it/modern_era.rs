//! The 2026-07-28 era against the Python `mcp` package's server: discover handshake,
//! progress, cancellation reaching the server, structured output, input rounds.

use std::path::Path;
use std::time::{Duration, Instant};

use rho_mcp::call::{CallContext, CallError};
use rho_mcp::config::parse_config;
use rho_mcp::connect::ConnectOptions;
use rho_mcp::runtime::{McpRuntime, Slot, StartOptions};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::peers::{fixture, python, q};

pub(crate) async fn start_modern(events: &Path) -> McpRuntime {
    let text = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("modern_server.py")),
        q(events)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let opts = StartOptions {
        connect: ConnectOptions {
            startup_budget: Duration::from_secs(60),
            shutdown_grace: Duration::from_millis(500),
            workspace: Some("/work/ws".into()),
            ..ConnectOptions::default()
        },
        call_budget: Duration::from_secs(60),
        ..StartOptions::default()
    };
    McpRuntime::start(&cfg, opts).await.unwrap()
}

fn args(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
    v.as_object().cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_handshake_and_calls() {
    let dir = tempfile::tempdir().unwrap();
    let rt = start_modern(&dir.path().join("events")).await;
    let Slot::Live(live) = &rt.slots()[0] else {
        panic!("{:?}", rt.slots()[0])
    };
    assert_eq!(live.protocol_version, "2026-07-28");
    let fenced = rt.instructions();
    assert!(
        fenced.starts_with("<mcp-server-instructions server=\"py\">"),
        "{fenced}"
    );
    assert!(fenced.contains("Use echo to repeat text."));
    let out = rt
        .call(
            "mcp__py__echo",
            args(json!({"text": "hi"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    // The server wraps the string as structuredContent {"result": ...}; its text block is not
    // a JSON mirror of it (the decided definition), so both reach the model.
    assert_eq!(out.text, "{\"result\":\"echo: hi\"}\necho: hi");
    let out = rt
        .call(
            "mcp__py__weather",
            args(json!({"city": "Oslo"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    let v: serde_json::Value = serde_json::from_str(&out.text).unwrap();
    assert_eq!(v["conditions"], "sunny in Oslo");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_progress_and_cancellation_reach_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events");
    let rt = start_modern(&events).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    let call = rt.call(
        "mcp__py__slow",
        args(json!({"seconds": 30})),
        CallContext {
            cancel,
            progress: Some(tx),
        },
    );
    let watcher = async move {
        let first = rx.recv().await.expect("progress arrives");
        c2.cancel();
        first
    };
    let started = Instant::now();
    let (r, first) = tokio::join!(call, watcher);
    assert!(matches!(r, Err(CallError::Cancelled)), "{r:?}");
    assert_eq!(first.total, Some(10.0));
    assert!(started.elapsed() < Duration::from_secs(10));
    let mut recorded = false;
    for _ in 0..50 {
        if std::fs::read_to_string(&events)
            .unwrap_or_default()
            .contains("cancelled")
        {
            recorded = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(recorded, "the server saw notifications/cancelled");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn modern_input_rounds_answer_roots_and_no_question_is_asked_without_a_person() {
    let dir = tempfile::tempdir().unwrap();
    let rt = start_modern(&dir.path().join("events")).await;
    let out = rt
        .call("mcp__py__roots", None, CallContext::default())
        .await
        .unwrap();
    assert!(out.text.contains("file:///work/ws"), "{}", out.text);
    let r = rt
        .call("mcp__py__greet", None, CallContext::default())
        .await;
    // No elicitation was declared (no person in this run), so a well-behaved server does not
    // ask at all: the call fails with its reason as an ordinary tool failure.
    let Err(CallError::Rpc { message, .. }) = &r else {
        panic!("{r:?}")
    };
    assert!(message.contains("elicitation capability"), "{message}");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn list_changes_revise_withdraw_and_flag_added_tools() {
    let dir = tempfile::tempdir().unwrap();
    let rt = start_modern(&dir.path().join("events")).await;
    let out = rt
        .call("mcp__py__reshape", None, CallContext::default())
        .await
        .unwrap();
    assert!(out.text.contains("reshaped"));
    let mut revised = false;
    for _ in 0..50 {
        let tools = rt.tools();
        if tools
            .iter()
            .any(|t| t.name == "mcp__py__echo" && t.description.contains("Revised echo."))
        {
            revised = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(revised, "the revised description reaches the next turn");
    let out = rt
        .call(
            "mcp__py__echo",
            args(json!({"text": "x"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(out.text.contains("echo2: x"), "{}", out.text);
    let r = rt
        .call(
            "mcp__py__weather",
            args(json!({"city": "Oslo"})),
            CallContext::default(),
        )
        .await;
    assert!(matches!(r, Err(CallError::Withdrawn { .. })), "{r:?}");
    assert!(
        rt.tools().iter().any(|t| t.name == "mcp__py__weather"),
        "withdrawn tools stay registered"
    );
    let live = rt.server("py").unwrap();
    assert_eq!(live.snapshot().added, ["added_tool"]);
    assert!(
        rt.registry().get("mcp__py__added_tool").is_none(),
        "added tools need a restart"
    );
    rt.shutdown().await;
}
