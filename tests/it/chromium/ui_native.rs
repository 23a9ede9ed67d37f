//! Rho's own agent in the Conversations panel (issue 18) in Chromium against the real service on the scripted model
//! with the Python SDK test server configured: the backend choice, a call card with its server, status, duration
//! and raw input and output one click away, the tokens spent; axe at 1600 and 390. With server-everything: a
//! server's form and sampling question answered in the panel, the composer's palettes and an image on its card.
//! What the panel showed is then read back from the service.

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

/// The form, the refusal naming a field, the sampling question, the composer's palettes and an image on its call
/// card in the panel, against
/// server-everything.
#[test]
fn the_panel_answers_a_servers_form_and_sampling_question() {
    let (c, conv, tools) = crate::support::conversations::everything_env("native-ui-questions");
    let exported = |name: &str| crate::support::conversations::exported(&tools, name);
    let (form, sampling, image) = (
        exported("trigger-elicitation-request"),
        exported("trigger-sampling-request"),
        exported("get-tiny-image"),
    );
    let artifacts = browser::artifacts("native-questions");
    let facts = browser::run_e2e(
        "e2e-questions.mjs",
        &c.env,
        "",
        &artifacts,
        &[
            ("RHO_FORM_TOOL", &form),
            ("RHO_SAMPLING_TOOL", &sampling),
            ("RHO_IMAGE_TOOL", &image),
        ],
    );
    for name in [
        "form_1600",
        "sampling_1600",
        "palette_1600",
        "palette_390",
        "image_1600",
        "form_390",
    ] {
        assert_eq!(facts["facts"][format!("axe_{name}")], 0, "{name}");
    }
    assert!(artifacts.join("questions-form-390x844.png").exists());
    // What the panel answered is what the service recorded.
    let (_, read) = c
        .env
        .local("conversation.read", json!({"conversationId": conv}));
    let messages = read["value"]["messages"].as_array().unwrap();
    let chosen: Vec<&str> = messages
        .iter()
        .flat_map(|m| m["permissions"].as_array().unwrap())
        .filter_map(|p| p["chosen"].as_str())
        .collect();
    assert_eq!(chosen, ["accept", "accept", "decline"], "{read}");
    // The prompt's turn and the resource's: the model read them.
    let saw = c.model_saw();
    assert!(
        saw.contains("What's weather in Oslo, Viken?"),
        "the prompt ran"
    );
    assert!(
        saw.contains("architecture.md]"),
        "the resource was attached"
    );
}
