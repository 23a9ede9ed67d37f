//! Seed 000's bounded close: a server that announces a list change and then stops answering
//! (ignoring stdin's close and SIGTERM) is reported failed with the reason within the
//! re-listing budget, its close ends within the shutdown ladder, and another server keeps
//! working throughout.

use std::time::{Duration, Instant};

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, StartOptions};

use crate::legacy_lists::{failure, gone, server_pid};
use crate::peers::{fixture, python, q};

const BUDGET: Duration = Duration::from_secs(2);
const GRACE: Duration = Duration::from_millis(500);

fn server(id: &str, script: &str, events: &std::path::Path) -> String {
    format!(
        "[mcp.servers.{id}]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture(script)),
        q(events)
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_stops_answering_is_failed_and_closed_within_the_bounds() {
    let dir = tempfile::tempdir().unwrap();
    let (mute_events, other_events) = (dir.path().join("mute"), dir.path().join("other"));
    let text = server("mute", "mute_after_change.py", &mute_events)
        + &server("other", "lenient_legacy.py", &other_events);
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let mut opts = StartOptions::default();
    opts.connect.startup_budget = BUDGET;
    opts.connect.shutdown_grace = GRACE;
    let rt = McpRuntime::start(&cfg, opts).await.unwrap();
    let pid = server_pid(&mute_events);

    let out = rt
        .call("mcp__mute__go_mute", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(out.text, "muted");
    let muted_at = Instant::now();

    let reason = failure(&rt, "mute").await;
    let reported = muted_at.elapsed();
    assert!(
        reason.contains("re-listing tools") && reason.contains("did not finish within 2s"),
        "{reason}"
    );
    assert!(
        reported >= BUDGET && reported < BUDGET + Duration::from_secs(2),
        "reported after {reported:?}, the bound is {BUDGET:?}"
    );

    // While the mute server's close is still under way, the other server answers.
    let hi = rt
        .call("mcp__other__hi", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(hi.text, "hello");

    // The close is bounded: stdin closed (ignored), SIGTERM (ignored), then SIGKILL — three
    // waits of the grace at most, whatever the server does.
    assert!(gone(pid).await, "the mute server's process is gone");
    let closed = muted_at.elapsed();
    assert!(
        closed < BUDGET + 3 * GRACE + Duration::from_secs(2),
        "closed after {closed:?}"
    );
    let events = std::fs::read_to_string(&mute_events).unwrap();
    assert!(
        events.contains("term ignored"),
        "the server ignored SIGTERM and was killed: {events}"
    );

    let after = rt
        .call("mcp__mute__go_mute", None, CallContext::default())
        .await
        .expect_err("a closed server's tools fail");
    assert!(after.to_string().contains("re-listing tools"), "{after}");
    let again = rt
        .call("mcp__other__hi", None, CallContext::default())
        .await
        .unwrap();
    assert_eq!(again.text, "hello");
    let stop = Instant::now();
    rt.shutdown().await;
    assert!(stop.elapsed() < 3 * GRACE + Duration::from_secs(2));
}
