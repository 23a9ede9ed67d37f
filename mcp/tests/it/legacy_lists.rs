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
