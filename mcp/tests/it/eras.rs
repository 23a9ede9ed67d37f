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
