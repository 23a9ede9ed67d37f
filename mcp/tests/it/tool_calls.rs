//! Tool calls through the real client against `server-everything` (2025-11-25 era):
//! progress, cancellation, budget, env sanitizing, structured output, images, roots.

use std::time::{Duration, Instant};

use rho_mcp::call::{CallContext, CallError};
use rho_mcp::config::parse_config;
use rho_mcp::connect::ConnectOptions;
use rho_mcp::naming::full_name;
use rho_mcp::runtime::{McpRuntime, StartOptions};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::peers::{everything, q};

pub(crate) async fn start_everything(extra: &str, call_budget: Duration) -> McpRuntime {
    let text = format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\n{extra}\n",
        q(&everything())
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let opts = StartOptions {
        connect: ConnectOptions {
            startup_budget: Duration::from_secs(60),
            shutdown_grace: Duration::from_millis(500),
            workspace: Some("/work/project dir".into()),
            ..ConnectOptions::default()
        },
        call_budget,
        ..StartOptions::default()
    };
    McpRuntime::start(&cfg, opts)
        .await
        .expect("one enabled server")
}

fn args(v: serde_json::Value) -> Option<serde_json::Map<String, serde_json::Value>> {
    v.as_object().cloned()
}

/// The exported name (long names are shortened, so ask the registry).
fn name(rt: &McpRuntime, tool: &str) -> String {
    let exported = rt
        .registry()
        .exported_for("ev", tool)
        .expect("tool registered");
    assert!(exported.len() <= 64);
    if exported != full_name("ev", tool) {
        assert!(
            full_name("ev", tool).len() > 64,
            "only long names are shortened"
        );
    }
    exported.to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn echo_and_tool_listing() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let tools = rt.tools();
    let echo = tools
        .iter()
        .find(|t| t.name == "mcp__ev__echo")
        .expect("echo exported");
    assert!(echo.description.contains("server `ev`"));
    assert!(echo.description.contains("Echo Tool"));
    assert!(echo.description.contains("Server hint: read-only"));
    let out = rt
        .call(
            "mcp__ev__echo",
            args(json!({"message": "hi there"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: hi there");
    assert!(!out.is_error);
    assert!(matches!(
        rt.call("mcp__ev__nope", None, CallContext::default()).await,
        Err(CallError::UnknownTool(_))
    ));
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_reaches_the_caller_with_totals() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let ctx = CallContext {
        progress: Some(tx),
        ..CallContext::default()
    };
    let out = rt
        .call(
            &name(&rt, "trigger-long-running-operation"),
            args(json!({"duration": 1, "steps": 4})),
            ctx,
        )
        .await
        .unwrap();
    assert!(out.text.contains("completed"), "{}", out.text);
    // Progress is delivered asynchronously; the last one may land just after the result.
    let mut seen = Vec::new();
    while let Ok(Some(p)) = tokio::time::timeout(Duration::from_secs(2), rx.recv()).await {
        seen.push(p);
        if seen.len() == 4 {
            break;
        }
    }
    assert_eq!(seen.len(), 4, "{seen:?}");
    assert!(seen.iter().all(|p| p.total == Some(4.0)));
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_call_returns_at_once_and_the_server_keeps_working() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let cancel = CancellationToken::new();
    let c2 = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        c2.cancel();
    });
    let started = Instant::now();
    let r = rt
        .call(
            &name(&rt, "trigger-long-running-operation"),
            args(json!({"duration": 30, "steps": 30})),
            CallContext {
                cancel,
                progress: None,
            },
        )
        .await;
    assert!(matches!(r, Err(CallError::Cancelled)), "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let out = rt
        .call(
            "mcp__ev__echo",
            args(json!({"message": "still here"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: still here");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_budget_times_out_despite_progress() {
    let rt = start_everything("", Duration::from_secs(1)).await;
    let started = Instant::now();
    let r = rt
        .call(
            &name(&rt, "trigger-long-running-operation"),
            args(json!({"duration": 20, "steps": 40})),
            CallContext::default(),
        )
        .await;
    assert!(matches!(r, Err(CallError::Timeout(_))), "{r:?}");
    assert!(started.elapsed() < Duration::from_secs(4));
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_environment_is_sanitized() {
    // CARGO_MANIFEST_DIR and CARGO_PKG_NAME are set by cargo for this test process.
    let rt = start_everything(
        "env = { LITERAL_VAR = \"lit\" }\nenv_from_env = { MAPPED_VAR = \"CARGO_PKG_NAME\" }",
        Duration::from_secs(60),
    )
    .await;
    let out = rt
        .call(&name(&rt, "get-env"), None, CallContext::default())
        .await
        .unwrap();
    let env: serde_json::Value = serde_json::from_str(&out.text).expect("get-env prints JSON");
    assert_eq!(env["LITERAL_VAR"], "lit");
    assert_eq!(env["MAPPED_VAR"], "rho-mcp");
    assert!(env.get("PATH").is_some());
    assert!(
        env.get("CARGO_MANIFEST_DIR").is_none(),
        "ambient variables are not copied"
    );
    assert!(env.get("CARGO_PKG_NAME").is_none());
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn structured_content_validates_and_its_mirror_is_dropped() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let out = rt
        .call(
            &name(&rt, "get-structured-content"),
            args(json!({"location": "Chicago"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    let v: serde_json::Value =
        serde_json::from_str(&out.text).expect("model reads the structured JSON only");
    assert!(v.get("temperature").is_some());
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn images_become_descriptors_and_the_first_is_kept() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let out = rt
        .call(&name(&rt, "get-tiny-image"), None, CallContext::default())
        .await
        .unwrap();
    assert!(out.text.contains("[image image/png, "), "{}", out.text);
    assert!(!out.text.contains("iVBOR"), "no base64 reaches the model");
    let img = out.image.expect("image kept for the card");
    assert_eq!(img.mime_type, "image/png");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn roots_advertise_the_workspace() {
    let rt = start_everything("", Duration::from_secs(60)).await;
    let out = rt
        .call(&name(&rt, "get-roots-list"), None, CallContext::default())
        .await
        .unwrap();
    assert!(
        out.text.contains("file:///work/project%20dir"),
        "{}",
        out.text
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn output_is_capped_by_max_output_bytes() {
    let text = format!(
        "[mcp]\nmax_output_bytes = 10\n[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\n",
        q(&everything())
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let out = rt
        .call(
            "mcp__ev__echo",
            args(json!({"message": "a long message"})),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: a lo[... 10 bytes omitted]");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filesystem_server_takes_the_workspace_root() {
    // server-filesystem started without directories uses the client's roots.
    let ws = tempfile::tempdir().unwrap();
    std::fs::write(ws.path().join("hello.txt"), "hi from the workspace").unwrap();
    let text = format!(
        "[mcp.servers.fs]\ntransport = \"stdio\"\ncommand = {}\n",
        q(&crate::peers::filesystem())
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let mut opts = StartOptions::default();
    opts.connect.workspace = Some(ws.path().to_owned());
    opts.connect.shutdown_grace = Duration::from_millis(500);
    let rt = McpRuntime::start(&cfg, opts).await.unwrap();
    let real = std::fs::canonicalize(ws.path()).unwrap();
    // The server asks for roots on its own after the handshake; wait for it to apply them.
    let mut last = String::new();
    for _ in 0..50 {
        last = rt
            .call(
                "mcp__fs__list_allowed_directories",
                None,
                CallContext::default(),
            )
            .await
            .unwrap()
            .text;
        if last.contains(real.to_str().unwrap()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(last.contains(real.to_str().unwrap()), "{last}");
    let path = real.join("hello.txt");
    let out = rt
        .call(
            "mcp__fs__read_text_file",
            args(json!({"path": path.to_str().unwrap()})),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(out.text.contains("hi from the workspace"), "{}", out.text);
    rt.shutdown().await;
}
