//! Legacy-era list changes (`notifications/tools/list_changed`): a withdrawn tool stays
//! registered and fails with the reason; an added tool waits for a restart.

use std::time::Duration;

use rho_mcp::call::{CallContext, CallError};
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, StartOptions};

use crate::peers::{fixture, python, q};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_list_changes_withdraw_and_flag_added_tools() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        "[mcp.servers.old]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("lenient_legacy.py")),
        q(&dir.path().join("events"))
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let out = rt
        .call("mcp__old__grow", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(out.text, "grew");
    let live = rt.server("old").unwrap();
    let mut added = Vec::new();
    for _ in 0..50 {
        added = live.snapshot().added;
        if !added.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(added, ["grown"]);
    assert!(rt.registry().get("mcp__old__grown").is_none());
    let again = rt
        .call("mcp__old__grow", None, CallContext::default())
        .await;
    assert!(
        matches!(again, Err(CallError::Withdrawn { .. })),
        "{again:?}"
    );
    assert!(rt
        .tools()
        .iter()
        .any(|t| t.name == "mcp__old__grow" && t.description.contains("withdrawn")));
    rt.shutdown().await;
}

/// Starts the lenient server with `budget` as the start (and re-listing) budget; returns the
/// runtime and the events file (it holds the server's pid).
async fn lenient(dir: &std::path::Path, budget: Duration) -> (McpRuntime, std::path::PathBuf) {
    let events = dir.join("events");
    let text = format!(
        "[mcp.servers.old]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("lenient_legacy.py")),
        q(&events)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let mut opts = StartOptions::default();
    opts.connect.startup_budget = budget;
    (McpRuntime::start(&cfg, opts).await.unwrap(), events)
}

pub(crate) fn server_pid(events: &std::path::Path) -> u32 {
    let text = std::fs::read_to_string(events).unwrap();
    text.lines()
        .find_map(|l| l.strip_prefix("pid "))
        .and_then(|p| p.trim().parse().ok())
        .expect("the fixture wrote its pid")
}

/// Waits until server `id` is marked failed; returns the reason.
pub(crate) async fn failure(rt: &McpRuntime, id: &str) -> String {
    let live = rt.server(id).unwrap();
    for _ in 0..100 {
        if let Some(reason) = live.snapshot().failed {
            return reason;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the server was never marked failed");
}

pub(crate) async fn gone(pid: u32) -> bool {
    for _ in 0..100 {
        if !std::path::Path::new(&format!("/proc/{pid}")).exists() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    false
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failed_relisting_closes_the_session_and_its_tools_fail_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, events) = lenient(dir.path(), Duration::from_secs(30)).await;
    let pid = server_pid(&events);
    let out = rt
        .call("mcp__old__break_lists", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(out.text, "broken");
    let reason = failure(&rt, "old").await;
    assert!(
        reason.contains("re-listing tools") && reason.contains("failed"),
        "{reason}"
    );
    assert!(
        gone(pid).await,
        "the closed session's server process is gone"
    );
    let after = rt.call("mcp__old__hi", None, CallContext::default()).await;
    let err = after.expect_err("a closed server's tools fail");
    assert!(err.to_string().contains("re-listing tools"), "{err}");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_relisting_that_hangs_is_closed_at_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let (rt, events) = lenient(dir.path(), Duration::from_secs(2)).await;
    let pid = server_pid(&events);
    rt.call("mcp__old__hang_lists", None, CallContext::default())
        .await
        .unwrap();
    let reason = failure(&rt, "old").await;
    assert!(reason.contains("did not finish within 2s"), "{reason}");
    assert!(
        gone(pid).await,
        "the closed session's server process is gone"
    );
    rt.shutdown().await;
}
