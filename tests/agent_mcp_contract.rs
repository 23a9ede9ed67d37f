//! The adapter and the test-only owner (feature `test-owner`): a contract that changes between
//! `rho_resolve` and `rho_call` is refused `stale` by the service and fetched again; a contract
//! over 64 KiB is refused whole, never split.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_mcp_util;
mod agent_util;
mod util;

use agent_mcp_util::start;
use agent_util::Env;
use serde_json::json;

#[test]
fn a_contract_changed_between_resolve_and_call_is_stale_then_refetched() {
    let env = Env::start(&[], None, "stale");
    env.grant(
        "st",
        Some(&[
            "project.entries",
            "testing.echo",
            "testing.revise",
            "testing.large",
        ]),
    );
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("st.json");
    let mut s = start("changed_contract", &file, "legacy", &[], &[]);
    assert_eq!(s.line(60), "READY");
    let (status, v) = env
        .service
        .call("testing.revise", json!({"projectId": env.project}));
    assert_eq!(status, 200, "{v}");
    s.go_on();
    let summary = s.finish(60);
    assert!(
        summary["stale"].to_string().contains("sha256:"),
        "stale names the current contract: {summary}"
    );
}
