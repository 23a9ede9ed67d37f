//! Stopping a message of Rho's own agent while its input is still read, through the real
//! service and a Python SDK server whose prompt and resource take a minute: the stop cancels the
//! `prompts/get` or `resources/read` (the server sees the cancellation), the message ends
//! `cancelled` with no model request, and the conversation goes on.

use crate::support::conversations::{native_env, ConvEnv};
use crate::support::mcp::python;
use crate::support::poll::until;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

/// Sends `text`, waits until the server says `<what> started`, stops the message and checks it
/// ended `cancelled` before any model request, and that the server saw `<what> cancelled`.
fn stopped_while_reading(c: &ConvEnv, conv: &str, events: &Path, text: &str, what: &str) {
    let said = || std::fs::read_to_string(events).unwrap_or_default();
    let asked = c.mock.requests().len();
    let sent = c.send(conv, what, text);
    let mid = sent["messageId"].as_str().unwrap().to_string();
    until(
        &format!("the server starts the {what}"),
        Duration::from_secs(20),
        || said().contains(&format!("{what} started")),
    );
    assert_eq!(c.message(conv, &mid)["state"], "running");
    c.stop(conv);
    let m = c.wait_end(conv, &mid);
    assert_eq!(m["stopReason"], "cancelled", "{m}");
    assert!(m["error"].is_null(), "{m}");
    until(
        &format!("the server sees the {what} cancelled"),
        Duration::from_secs(20),
        || said().contains(&format!("{what} cancelled")),
    );
    assert_eq!(c.mock.requests().len(), asked, "no model request");
}

#[test]
fn a_stop_cancels_a_prompt_fetch_or_a_resource_read_in_progress() {
    let scratch = tempfile::tempdir().unwrap();
    let events = scratch.path().join("events");
    let server =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/slow_reads_server.py");
    let table = format!(
        "[mcp.servers.slow]\ntransport = \"stdio\"\ncommand = {:?}\nargs = [{:?}]\nenv = {{ RHO_TEST_EVENTS = {:?} }}\n",
        python().display().to_string(),
        server.display().to_string(),
        events.display().to_string()
    );
    let c = native_env("native-stop", &table, &[]);
    let (conv, m) = c.converse("s0", "Say hello", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    stopped_while_reading(&c, &conv, &events, "/mcp:slow:slow_prompt", "prompt");
    stopped_while_reading(
        &c,
        &conv,
        &events,
        "read @mcp:slow:slow://static please",
        "resource",
    );
    // The conversation goes on.
    let sent = c.send(&conv, "s3", "Say hello again");
    let m = c.wait_end(&conv, sent["messageId"].as_str().unwrap());
    assert_eq!(m["stopReason"], "end_turn", "{m}");
}
