//! The composer's palettes of a conversation of Rho's own agent against the real service and the
//! real `server-everything`: its prompts as slash commands with a server's suggestions, a
//! missing required argument refused naming it (nothing journaled, no model request), a prompt
//! with arguments becoming the turn; its resources for the `@` palette (templates with
//! suggestions), one attached to a message by its token, and one that cannot be read ending
//! the message before any model request; an image result shown on its card (`conversation.image`)
//! while the model read only its descriptor, stored by its digest and served again after a
//! restart; after a restart, the palettes opening the session
//! without a message, whose first send is still given the earlier messages.

use super::native_questions::everything;
use crate::support::conversations::ConvEnv;
use base64::Engine;
use serde_json::{json, Value};

fn ok(c: &ConvEnv, op: &str, body: Value) -> Value {
    let (status, v) = c.env.local(op, body);
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

fn messages(c: &ConvEnv, conv: &str) -> usize {
    c.read(conv)["messages"].as_array().unwrap().len()
}

#[test]
fn a_slash_prompt_is_listed_suggested_checked_and_becomes_the_turn() {
    let (c, conv, _, _) = everything("native-prompts");
    let listed = ok(&c, "conversation.prompts", json!({"conversationId": conv}));
    assert_eq!(listed["live"], true, "{listed}");
    let prompts = listed["prompts"].as_array().unwrap();
    let args = prompts
        .iter()
        .find(|p| p["command"] == "/mcp:ev:args-prompt")
        .unwrap_or_else(|| panic!("{listed}"));
    assert_eq!(
        args["arguments"][0],
        json!({"name": "city", "required": true}),
        "{args}"
    );
    let suggested = ok(
        &c,
        "conversation.complete",
        json!({"conversationId": conv, "server": "ev", "prompt": "completable-prompt", "argument": "department", "value": "Eng"}),
    );
    assert_eq!(suggested["values"], json!(["Engineering"]), "{suggested}");
    // A missing required argument: refused naming it, nothing journaled, no model request.
    let (before, asked) = (messages(&c, &conv), c.mock.requests().len());
    let (status, e) = c.env.local(
        "conversation.send",
        json!({"conversationId": conv, "changeId": "p1", "text": "/mcp:ev:args-prompt state=Viken"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid")),
        "{e}"
    );
    assert!(
        e["error"]["message"].as_str().unwrap().contains("`city`"),
        "{e}"
    );
    assert_eq!(messages(&c, &conv), before, "nothing journaled");
    assert_eq!(c.mock.requests().len(), asked, "no model request");
    // With its arguments the prompt is fetched and becomes the turn.
    let sent = c.send(&conv, "p2", "/mcp:ev:args-prompt city=Oslo state=Viken");
    let m = c.wait_end(&conv, sent["messageId"].as_str().unwrap());
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert_eq!(
        m["text"], "/mcp:ev:args-prompt city=Oslo state=Viken",
        "the person's line is kept"
    );
    assert!(
        c.model_saw().contains("What's weather in Oslo, Viken?"),
        "the prompt's text reached the model"
    );
}

#[test]
fn an_at_resource_is_found_attached_and_a_failed_read_ends_the_message_first() {
    let (c, conv, _, _) = everything("native-resources");
    let found = ok(
        &c,
        "conversation.resources",
        json!({"conversationId": conv, "query": "ARCHITECTURE"}),
    );
    let doc = found["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["uri"].as_str().unwrap().ends_with("architecture.md"))
        .cloned()
        .unwrap_or_else(|| panic!("{found}"));
    let uri = doc["uri"].as_str().unwrap().to_string();
    assert_eq!(doc["token"], format!("@mcp:ev:{uri}"), "{doc}");
    assert_eq!(doc["template"], false);
    let all = ok(
        &c,
        "conversation.resources",
        json!({"conversationId": conv}),
    );
    let rows = all["resources"].as_array().unwrap();
    let first_template = rows
        .iter()
        .position(|r| r["template"] == true)
        .unwrap_or_else(|| panic!("{all}"));
    assert!(
        rows[first_template..].iter().all(|r| r["template"] == true),
        "resources come first: {all}"
    );
    let template = rows
        .iter()
        .find(|r| r["template"] == true && r["uri"].as_str().unwrap().contains("/text/"))
        .unwrap_or_else(|| panic!("{all}"));
    let suggested = ok(
        &c,
        "conversation.complete",
        json!({"conversationId": conv, "server": "ev", "uriTemplate": template["uri"], "argument": "resourceId", "value": "3"}),
    );
    assert_eq!(suggested["values"], json!(["3"]), "{suggested}");
    // Attached by its token: the model reads the text with the marker, then the body.
    let sent = c.send(
        &conv,
        "r1",
        &format!("summarize {} please", doc["token"].as_str().unwrap()),
    );
    let m = c.wait_end(&conv, sent["messageId"].as_str().unwrap());
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let saw = c.model_saw();
    assert!(
        saw.contains(&format!("summarize [resource {uri}] please")),
        "the token became a marker"
    );
    assert!(
        saw.contains(&format!("[resource {uri}]\\n")),
        "the body follows its marker"
    );
    // A resource that cannot be read ends the message before any model request.
    let asked = c.mock.requests().len();
    let sent = c.send(&conv, "r2", "read @mcp:ev:demo://nothing/here");
    let m = c.wait_end(&conv, sent["messageId"].as_str().unwrap());
    assert_eq!(m["error"]["code"], "resource_error", "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("demo://nothing/here"),
        "{m}"
    );
    assert_eq!(c.mock.requests().len(), asked, "no model request");
}

#[test]
fn an_image_result_is_shown_on_its_card_stored_and_served_after_a_restart() {
    let (mut c, conv, tools) = crate::support::conversations::everything_env("native-image");
    let tiny = crate::support::conversations::exported(&tools, "get-tiny-image");
    let sent = c.send(&conv, "i1", &format!("[[tool: {tiny}]]"));
    let m = c.wait_end(&conv, sent["messageId"].as_str().unwrap());
    let step = crate::support::conversations::steps(&m)[0].clone();
    let output = step["call"]["rawOutput"].as_str().unwrap();
    assert!(output.contains("[image image/png, "), "{step}");
    let image = ok(
        &c,
        "conversation.image",
        json!({"conversationId": conv, "stepId": step["stepId"]}),
    );
    assert_eq!(image["mimeType"], "image/png", "{image}");
    let data = image["data"].as_str().unwrap();
    assert!(data.len() > 100, "{image}");
    assert!(!c.model_saw().contains(data), "never base64 to the model");
    // Stored in the project's content-addressed store under the digest of its bytes.
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(data)
        .unwrap();
    assert_eq!(&bytes[1..4], b"PNG", "the decoded image");
    let digest = image["sha256"].as_str().unwrap().to_string();
    assert_eq!(digest, crate::support::sha256_hex(&bytes));
    let stored = c.env.dir.join(".rho/store/sha256").join(&digest);
    assert_eq!(std::fs::read(&stored).unwrap(), bytes);
    let (status, e) = c.env.local(
        "conversation.image",
        json!({"conversationId": conv, "stepId": "no-such-step"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{e}"
    );
    // After a kill -9 and a restart (no session runs) the card's image is served the same.
    c.restart();
    let again = ok(
        &c,
        "conversation.image",
        json!({"conversationId": conv, "stepId": step["stepId"]}),
    );
    assert_eq!(again, image);
}

#[test]
fn after_a_restart_the_palettes_open_the_session_and_the_first_send_keeps_the_history() {
    let (mut c, conv, _) = crate::support::conversations::everything_env("native-reopen");
    c.restart();
    let asked = c.mock.requests().len();
    // No message is sent: the palette starts the driver, which opens the session.
    let listed = ok(&c, "conversation.prompts", json!({"conversationId": conv}));
    assert_eq!(listed["live"], true, "{listed}");
    assert!(
        listed["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["command"] == "/mcp:ev:args-prompt"),
        "{listed}"
    );
    let found = ok(
        &c,
        "conversation.resources",
        json!({"conversationId": conv}),
    );
    assert_eq!(found["live"], true, "{found}");
    assert!(
        !found["resources"].as_array().unwrap().is_empty(),
        "{found}"
    );
    assert_eq!(c.mock.requests().len(), asked, "no model request");
    assert_eq!(messages(&c, &conv), 1, "nothing journaled as a message");
    // The first message in that session is still given the earlier messages.
    crate::support::conversations::sends_given_the_history(&c, &conv, "after");
}
