//! Era detection: a legacy server that answers `server/discover` with an empty result gets
//! the legacy handshake; the detected era is remembered so the next start does not probe.

use std::time::Duration;

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::eras::EraStore;
use rho_mcp::runtime::{McpRuntime, Slot, StartOptions};

use crate::peers::{fixture, python, q};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lenient_legacy_server_falls_back_and_the_era_is_remembered() {
    let dir = tempfile::tempdir().unwrap();
    let events = dir.path().join("events");
    let text = format!(
        "[mcp.servers.old]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_EVENTS = {} }}\n",
        q(&python()),
        q(&fixture("lenient_legacy.py")),
        q(&events)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let store = EraStore::new(dir.path().join("state/mcp-eras.json"));
    for round in 0..2 {
        let mut opts = StartOptions::default();
        opts.connect.eras = Some(store.clone());
        opts.connect.shutdown_grace = Duration::from_millis(300);
        let rt = McpRuntime::start(&cfg, opts).await.unwrap();
        let Slot::Live(live) = &rt.slots()[0] else {
            panic!("round {round}: {:?}", rt.slots()[0])
        };
        assert_eq!(live.protocol_version, "2025-11-25");
        let out = rt
            .call("mcp__old__hi", None, CallContext::default())
            .await
            .unwrap();
        assert_eq!(out.text, "hello");
        rt.shutdown().await;
    }
    let log = std::fs::read_to_string(&events).unwrap();
    let discovers = log.lines().filter(|l| *l == "server/discover").count();
    assert_eq!(discovers, 1, "probed once, then remembered: {log}");
    assert_eq!(log.lines().filter(|l| *l == "initialize").count(), 2);
}

/// A modern server that starts slower than rmcp's fixed probe window (10 s): `initialize` was
/// already sent when `server/discover`'s answer came. Rho starts it again with discover alone,
/// within the start budget, instead of failing (seen under load with the Python SDK server).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_modern_server_slower_than_the_probe_window_still_starts_modern() {
    let dir = tempfile::tempdir().unwrap();
    // Only the first start is slow: the retry must not wait again.
    let slow_once = dir.path().join("slow-once");
    let text = format!(
        "[mcp.servers.slow]\ntransport = \"stdio\"\ncommand = \"sh\"\nargs = [\"-c\", {}]\n",
        q(std::path::Path::new(&format!(
            "if [ ! -e {m} ]; then touch {m}; sleep 11; fi; exec {py} {fx}",
            m = slow_once.display(),
            py = python().display(),
            fx = fixture("modern_server.py").display()
        )))
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let mut opts = StartOptions::default();
    opts.connect.startup_budget = Duration::from_secs(60);
    opts.connect.shutdown_grace = Duration::from_millis(300);
    let rt = McpRuntime::start(&cfg, opts).await.unwrap();
    let Slot::Live(live) = &rt.slots()[0] else {
        panic!("{:?}", rt.slots()[0])
    };
    assert_eq!(live.protocol_version, "2026-07-28");
    let out = rt
        .call(
            "mcp__slow__echo",
            serde_json::json!({"text": "hi"}).as_object().cloned(),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert!(out.text.contains("echo: hi"), "{}", out.text);
    rt.shutdown().await;
}
