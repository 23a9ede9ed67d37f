//! A session of Rho's own agent left idle through the real service: after `conversations.
//! rhoIdleMs` with nothing asked of it, its MCP server closes (`/mcp` is no longer live); a
//! palette read opens it again without a message, and the next message is still given the
//! earlier messages.

use super::native_tools::running;
use crate::support::conversations::native_env;
use crate::support::mcp::python;
use crate::support::poll::until;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

#[test]
fn an_idle_session_closes_its_servers_and_a_palette_or_message_reopens_it() {
    let scratch = tempfile::tempdir().unwrap();
    // A copy of the Python SDK test server at a path only this test uses.
    let server = scratch.path().join("native_idle_server.py");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/modern_server.py"),
        &server,
    )
    .unwrap();
    let needle = server.display().to_string();
    let limits = scratch.path().join("limits.json");
    std::fs::write(&limits, r#"{"conversations": {"rhoIdleMs": 3000}}"#).unwrap();
    let table = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {:?}\nargs = [{:?}]\n",
        python().display().to_string(),
        needle
    );
    let c = native_env(
        "native-idle",
        &table,
        &["--limits", &limits.display().to_string()],
    );
    let (conv, m) = c.converse("i1", "Say hello", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert_eq!(running(&needle).len(), 1, "the session's server runs");
    until(
        "the idle session's server closes",
        Duration::from_secs(20),
        || running(&needle).is_empty(),
    );
    let (status, v) = c
        .env
        .local("conversation.mcp", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["live"], false, "no session runs: {v}");
    // A palette read opens it again, without a message.
    let asked = c.mock.requests().len();
    let (status, v) = c
        .env
        .local("conversation.prompts", json!({"conversationId": conv}));
    assert_eq!((status, &v["value"]["live"]), (200, &json!(true)), "{v}");
    assert_eq!(running(&needle).len(), 1, "the server started again");
    assert_eq!(c.mock.requests().len(), asked, "no model request");
    // The next message in that session is given the earlier messages first.
    crate::support::conversations::sends_given_the_history(&c, &conv, "i2");
    // Idle again: closed again.
    until(
        "the reopened session's server closes",
        Duration::from_secs(20),
        || running(&needle).is_empty(),
    );
}
