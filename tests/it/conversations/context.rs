//! What the Agent is given with a message, through the service with the real Claude Code and
//! Codex: the frozen contexts' content (unknown or malformed ids refused, naming them) and the
//! session's instructions (exploratory code in the notebook sessions, results relied on in
//! scripts).

use crate::support::conversations::{conv_env, ids, text};
use rho_mock_model::script;
use serde_json::json;

/// A phrase of the instructions every Rho-started Agent session is given.
const TOLD: &str = "Run exploratory code (looking at data, trying a model, checking a number) in the project's notebook sessions";

#[test]
fn frozen_contexts_are_given_to_the_agent_and_unknown_ones_are_refused() {
    let Some(c) = conv_env("conv-contexts", 2) else {
        return;
    };
    let (status, made) = c.env.local(
        "context.create",
        json!({"changeId": "ctx1", "entities": {"namespace": "samples", "keys": ["s-alpha-17", "s-beta-42"]}}),
    );
    assert_eq!(status, 200, "{made}");
    let context = made["value"]["contextId"].as_str().unwrap().to_string();
    let unknown = uuid::Uuid::new_v4().to_string();
    let (status, e) = c.env.local(
        "conversation.start",
        json!({"changeId": "k0", "text": "Say hello", "contexts": [context, unknown]}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{e}"
    );
    assert!(
        e["error"]["message"].as_str().unwrap().contains(&unknown),
        "names it: {e}"
    );
    let (status, e) = c.env.local(
        "conversation.start",
        json!({"changeId": "k0", "text": "Say hello", "contexts": ["nope"]}),
    );
    assert_eq!(
        (status, e["error"]["details"]["index"].as_u64()),
        (400, Some(0)),
        "{e}"
    );
    assert_eq!(
        c.env.local("conversation.list", json!({})).1["value"]["conversations"],
        json!([]),
        "a refused start changes nothing"
    );
    let before = c.mock.requests().len();
    let (conv, mid) = ids(&c.start("k1", "Say hello", json!({"contexts": [context]})));
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains(script::PLAIN), "{m}");
    assert_eq!(m["contexts"], json!([context]));
    let saw = c.model_saw();
    assert!(
        saw.contains("s-alpha-17") && saw.contains("s-beta-42") && saw.contains(&context),
        "the frozen content reached the model"
    );
    assert!(c.mock.requests().len() > before);
    assert!(saw.contains(TOLD), "the session was told how Rho works");
}

#[test]
fn codex_sessions_are_told_to_explore_in_the_notebook_too() {
    let Some(c) = conv_env("conv-told-codex", 2) else {
        return;
    };
    let (_, m) = c.converse("x1", "Say hello", json!({"backend": "codex"}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(
        c.model_saw().contains(TOLD),
        "Codex was given the instructions"
    );
}
