//! Rho's own agent in the Conversations panel (issue 18) in Chromium against the real service on the scripted model
//! with the Python SDK test server configured: the backend choice, a call card with its server, status, duration
//! and raw input and output one click away, the tokens spent; axe at 1600 and 390. What the panel showed is then
//! read back from the service.

use crate::support::browser;
use crate::support::conversations::native_env;
use crate::support::mcp::python;
use serde_json::json;
use std::path::Path;

#[test]
fn the_panel_shows_rhos_own_agent_and_its_call_cards() {
    let server = Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/fixtures/modern_server.py");
    let table = format!(
        "[mcp.servers.py]\ntransport = \"stdio\"\ncommand = {:?}\nargs = [{:?}]\n",
        python().display().to_string(),
        server.display().to_string()
    );
    let c = native_env("native-ui", &table, &[]);
    let artifacts = browser::artifacts("native");
    let facts = browser::run_e2e("e2e-native.mjs", &c.env, "", &artifacts, &[]);
    for size in ["1600", "390"] {
        assert_eq!(facts["facts"][format!("axe_native_{size}")], 0, "{size}");
    }
    assert!(artifacts.join("native-390x844.png").exists());
    let (_, list) = c.env.local("conversation.list", json!({}));
    let conv = &list["value"]["conversations"][0];
    assert_eq!(conv["backend"], "rho", "{list}");
    let (_, read) = c.env.local(
        "conversation.read",
        json!({"conversationId": conv["conversationId"]}),
    );
    let m = &read["value"]["messages"][0];
    let step = crate::support::conversations::steps(m)[0].clone();
    assert_eq!(step["call"]["server"], "py", "{step}");
    assert!(
        step["call"]["rawOutput"]
            .as_str()
            .unwrap()
            .contains("echo: from the panel"),
        "{step}"
    );
}
