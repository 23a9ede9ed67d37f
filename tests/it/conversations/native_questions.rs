//! A server's questions in a conversation of Rho's own agent, through the real service and the
//! real `server-everything`: its elicitation form shown as a question on the message
//! (`conversation.question` gives the fields), answered with `conversation.answer`: accepted
//! (bad content refused naming the field first), declined and cancelled (which ends the turn);
//! its sampling request (`sampling = "ask"`) refused, and confirmed with the spend in the
//! ledger under `mcp_sampling`.

use crate::support::conversations::{everything_env, exported, pending, text, ConvEnv};
use serde_json::{json, Value};

/// A conversation whose session runs `server-everything` as `ev` (sampling on ask), and the
/// exported names of its elicitation and sampling tools.
pub(super) fn everything(test: &str) -> (ConvEnv, String, String, String) {
    let (c, conv, tools) = everything_env(test);
    let form = exported(&tools, "trigger-elicitation-request");
    let sampling = exported(&tools, "trigger-sampling-request");
    (c, conv, form, sampling)
}

/// Sends `text` and waits for its question: (message id, the question record, its details).
fn asked(c: &ConvEnv, conv: &str, change_id: &str, text: &str) -> (String, Value, Value) {
    let sent = c.send(conv, change_id, text);
    let mid = sent["messageId"].as_str().unwrap().to_string();
    let m = c.wait(conv, &mid, "a question is asked", |m| {
        m["state"] != "running" || pending(m).is_some()
    });
    let p = pending(&m).unwrap_or_else(|| panic!("no question was asked: {m}"));
    let (status, v) = c.env.local(
        "conversation.question",
        json!({"conversationId": conv, "requestId": p["requestId"]}),
    );
    assert_eq!(status, 200, "{v}");
    (mid, p, v["value"]["question"].clone())
}

fn answer(c: &ConvEnv, conv: &str, p: &Value, action: &str, content: Value) -> (u16, Value) {
    c.env.local(
        "conversation.answer",
        json!({"conversationId": conv, "requestId": p["requestId"], "action": action, "content": content}),
    )
}

#[test]
fn a_form_is_accepted_declined_and_cancelled_through_the_panels_operations() {
    let (c, conv, form, _) = everything("native-form");
    let (mid, p, q) = asked(&c, &conv, "f1", &format!("[[tool: {form}]]"));
    assert_eq!(p["kind"], "form", "{p}");
    assert!(p["stepId"].is_string(), "the form names its tool call: {p}");
    assert!(p["title"].as_str().unwrap().starts_with("ev asks: "), "{p}");
    assert_eq!(
        (q["kind"].as_str(), q["server"].as_str()),
        (Some("form"), Some("ev"))
    );
    let field = |name: &str| {
        q["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["name"] == name)
            .cloned()
            .unwrap_or_else(|| panic!("{name}: {q}"))
    };
    let integer = field("integer");
    assert_eq!(
        (
            &integer["kind"],
            &integer["default"],
            &integer["min"],
            &integer["max"]
        ),
        (&json!("integer"), &json!(42), &json!(1.0), &json!(100.0))
    );
    assert_eq!(field("name")["required"], true);
    // The fields come in the order the server's schema lists them (not sorted by name).
    let names: Vec<&str> = q["fields"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["name"].as_str())
        .collect();
    assert_eq!(
        names[..6],
        [
            "name",
            "check",
            "firstLine",
            "email",
            "homepage",
            "birthdate"
        ],
        "{q}"
    );
    assert_eq!(field("untitledMultipleSelectEnum")["kind"], "multi");
    assert_eq!(
        field("titledSingleSelectEnum")["options"][1]["label"],
        "Green Lantern"
    );
    // Bad content is refused naming the field; the form stays open.
    for (content, named) in [
        (json!({"integer": 5}), "name"),
        (json!({"name": "Ada", "integer": "5"}), "integer"),
        (json!({"name": "Ada", "integer": 500}), "integer"),
        (
            json!({"name": "Ada", "untitledSingleSelectEnum": "Gunther"}),
            "untitledSingleSelectEnum",
        ),
        (json!({"name": "Ada", "check": "yes"}), "check"),
    ] {
        let (status, e) = answer(&c, &conv, &p, "accept", content.clone());
        assert_eq!(status, 400, "{content}: {e}");
        assert_eq!(e["error"]["code"], "invalid", "{e}");
        assert!(
            e["error"]["message"]
                .as_str()
                .unwrap()
                .contains(&format!("`{named}`")),
            "{content}: {e}"
        );
    }
    let (status, v) = answer(
        &c,
        &conv,
        &p,
        "accept",
        json!({"name": "Ada Lovelace", "check": true, "integer": 7, "number": 2.5}),
    );
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["permission"]["chosen"], "accept", "{v}");
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let said = text(&m);
    assert!(
        said.contains("Name: Ada Lovelace") && said.contains("Favorite Integer: 7"),
        "{said}"
    );
    // Answering it again: the question is no longer open.
    let (status, e) = answer(&c, &conv, &p, "decline", Value::Null);
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );

    let (mid, p, _) = asked(&c, &conv, "f2", &format!("[[tool: {form}]]"));
    assert_eq!(answer(&c, &conv, &p, "decline", Value::Null).0, 200);
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains("declined"), "{m}");

    let (mid, p, _) = asked(&c, &conv, "f3", &format!("[[tool: {form}]]"));
    assert_eq!(answer(&c, &conv, &p, "cancel", Value::Null).0, 200);
    let m = c.wait_end(&conv, &mid);
    assert_eq!(
        m["stopReason"], "cancelled",
        "cancelling the form ends the turn: {m}"
    );
}

#[test]
fn sampling_asks_the_person_and_only_a_yes_spends_the_model_under_mcp_sampling() {
    let (c, conv, _, sampling) = everything("native-sampling");
    let call = format!("[[tool: {sampling}|{{\"prompt\": \"hello\", \"maxTokens\": 50}}]]");
    // A sampling request is a one-shot request: it offers the model no tools.
    let side = || {
        c.mock
            .requests()
            .iter()
            .filter(|r| r["body"]["tools"].as_array().is_none_or(|t| t.is_empty()))
            .count()
    };
    let before = side();
    let (mid, p, q) = asked(&c, &conv, "s1", &call);
    assert_eq!(p["kind"], "sampling", "{p}");
    assert_eq!(
        (&q["server"], &q["messages"], &q["maxTokens"], &q["model"]),
        (&json!("ev"), &json!(1), &json!(50), &json!("mock-model"))
    );
    assert!(
        p["title"].as_str().unwrap().contains("up to 50 tokens"),
        "{p}"
    );
    assert_eq!(answer(&c, &conv, &p, "decline", Value::Null).0, 200);
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let sampled = |m: &Value| {
        m["spend"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["purpose"] == "mcp_sampling")
            .cloned()
    };
    assert_eq!(sampled(&m), None, "a refusal spends nothing: {m}");
    assert_eq!(side(), before, "no sampling request reached the model");

    let (mid, p, _) = asked(&c, &conv, "s2", &call);
    assert_eq!(answer(&c, &conv, &p, "accept", Value::Null).0, 200);
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(
        text(&m).contains("mock-model"),
        "the reply names the model: {m}"
    );
    assert_eq!(side(), before + 1, "one sampling request reached the model");
    let spent = sampled(&m).unwrap_or_else(|| panic!("spend under mcp_sampling: {m}"));
    assert_eq!(spent["requests"], 1, "{spent}");
    let (_, v) = c.env.local("conversation.list", json!({}));
    let totals = &v["value"]["conversations"][0]["spend"];
    assert!(
        totals
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["purpose"] == "mcp_sampling"),
        "{totals}"
    );
}
