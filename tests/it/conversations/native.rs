//! Rho's own agent as the conversation backend `rho` through the real service and the scripted
//! model: a text answer streamed into the message with its usage ledger journaled (per message
//! and purpose, totals on the conversation, kept across a kill -9), an API error that ends the
//! turn with the provider's reason while the next one works, a stop that cancels the model
//! request, and a model that is not configured answering `unavailable` naming what is missing.

use crate::support::conversations::{ids, native_env, text};
use crate::support::env::Env;
use rho_mock_model::script;
use serde_json::{json, Value};
use std::time::Duration;

fn spend<'a>(v: &'a Value, purpose: &str) -> &'a Value {
    v["spend"]
        .as_array()
        .and_then(|all| all.iter().find(|s| s["purpose"] == purpose))
        .unwrap_or(&Value::Null)
}

#[test]
fn rho_answers_keeps_its_ledger_and_an_api_error_ends_only_that_turn() {
    let mut c = native_env("native-answer", "", &[]);
    // `--agent-backend rho`: a start that names no backend is Rho's own agent.
    let started = c.start("n1", "Say hello", json!({}));
    assert_eq!(started["conversation"]["backend"], "rho");
    let (conv, mid) = ids(&started);
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert_eq!(text(&m), script::PLAIN, "{m}");
    assert_eq!(m["usage"]["inputTokens"], 10, "{m}");
    assert_eq!(m["usage"]["outputTokens"], 5, "{m}");
    let turn = spend(&m, "turn");
    assert_eq!(
        (
            &turn["inputTokens"],
            &turn["outputTokens"],
            &turn["requests"]
        ),
        (&json!(10), &json!(5), &json!(1)),
        "{m}"
    );
    let asked = c.mock.requests().len();
    assert_eq!(asked, 1, "one model request for a plain answer");

    // The next turn carries the earlier answer in its transcript.
    let again = c.send(&conv, "n2", "Say hello again");
    let aid = again["messageId"].as_str().unwrap().to_string();
    let a = c.wait_end(&conv, &aid);
    assert_eq!(a["stopReason"], "end_turn", "{a}");
    let last = c.mock.requests().last().cloned().unwrap();
    assert!(
        last["body"].to_string().contains(script::PLAIN),
        "the transcript carries the first answer: {last}"
    );

    // In another conversation the provider fails (HTTP 500, retried once and announced): the
    // turn ends with its reason, and the next turn works.
    let asked = c.mock.requests().len();
    let (other, fid) = ids(&c.start("e1", "[[error]]", json!({})));
    let f = c.wait_end(&other, &fid);
    assert_eq!(f["state"], "ended", "{f}");
    assert_eq!(f["stopReason"], "error", "{f}");
    assert_eq!(f["error"]["code"], "model_error", "{f}");
    assert!(
        f["error"]["message"]
            .as_str()
            .unwrap()
            .contains("scripted error"),
        "{f}"
    );
    let retries = f["retries"].as_array().cloned().unwrap_or_default();
    assert_eq!(retries.len(), 1, "{f}");
    assert!(
        retries[0].as_str().unwrap().contains("attempt 1 of 1"),
        "{f}"
    );
    assert_eq!(
        c.mock.requests().len(),
        asked + 2,
        "the request and its one retry"
    );
    assert!(
        spend(&f, "turn").is_null(),
        "a failed request spent nothing: {f}"
    );
    let ok = c.send(&other, "e2", "Say hello");
    let oid = ok["messageId"].as_str().unwrap().to_string();
    assert_eq!(c.wait_end(&other, &oid)["stopReason"], "end_turn");

    // The conversation's totals, in conversation.read and the person's snapshot.
    let read = c.read(&conv);
    let total = spend(&read["conversation"], "turn");
    assert_eq!(
        (&total["inputTokens"], &total["requests"]),
        (&json!(20), &json!(2)),
        "{read}"
    );
    let (_, snap) = c.env.local("observation.snapshot", json!({}));
    let listed = snap["value"]["conversations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["conversationId"] == conv.as_str())
        .cloned()
        .unwrap();
    assert_eq!(spend(&listed, "turn")["requests"], 2, "{snap}");

    // Journaled: a kill -9 and a restart keep the ledger and the steps exactly.
    c.restart();
    let after = c.read(&conv);
    assert_eq!(
        after["conversation"]["spend"],
        read["conversation"]["spend"]
    );
    assert_eq!(after["messages"], read["messages"]);
    // A new turn after the restart opens a new session given the earlier messages.
    let next = c.send(&conv, "n4", "Say hello once more");
    let nid = next["messageId"].as_str().unwrap().to_string();
    assert_eq!(c.wait_end(&conv, &nid)["stopReason"], "end_turn");
    let last = c.mock.requests().last().cloned().unwrap();
    assert!(
        last["body"].to_string().contains("Say hello again"),
        "the new session is given the earlier messages: {last}"
    );
}

#[test]
fn stopping_rho_cancels_the_model_request() {
    let c = native_env("native-stop", "", &[]);
    let (conv, mid) = ids(&c.start("s1", "[[slow]]", json!({})));
    c.wait(&conv, &mid, "the slow answer streams", |m| {
        !text(m).is_empty() || m["state"] != "running"
    });
    let stopped = c.stop(&conv);
    assert_eq!(stopped["state"], "ended", "{stopped}");
    assert_eq!(stopped["stopReason"], "cancelled", "{stopped}");
    let at_stop = c.mock.emitted().len();
    assert!(at_stop < script::SLOW_WORDS, "{at_stop}");
    // The request was dropped: the endpoint stops streaming (a write or two may still land
    // before it sees the connection closed). Time must pass to show nothing more streams.
    std::thread::sleep(Duration::from_millis(script::SLOW_DELAY_MS * 6));
    let later = c.mock.emitted().len();
    assert!(later <= at_stop + 2, "{at_stop} then {later}");
    assert!(later < script::SLOW_WORDS);
    // The conversation goes on.
    let next = c.send(&conv, "s2", "Say hello");
    let nid = next["messageId"].as_str().unwrap().to_string();
    assert_eq!(c.wait_end(&conv, &nid)["stopReason"], "end_turn");
}

#[test]
fn rho_without_a_model_is_unavailable_naming_what_is_missing() {
    let work = tempfile::tempdir().unwrap();
    let config = work.path().join("config.toml");
    std::fs::write(&config, "[mcp]\n").unwrap();
    let home = work.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let cfg = config.display().to_string();
    let env = Env::start_with_env(
        &["--config", &cfg],
        &[("RHO_HOME", home.to_str().unwrap())],
        None,
        "native-missing",
    );
    let (status, e) = env.local(
        "conversation.start",
        json!({"changeId": "m1", "text": "hi", "backend": "rho"}),
    );
    assert_eq!(e["error"]["code"], "unavailable", "{status} {e}");
    let message = e["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("a [model] table in") && message.contains(&cfg),
        "{message}"
    );
    // A key from a variable that is not set: the variable is named.
    std::fs::write(
        &config,
        "[model]\nprovider = \"openai\"\nmodel = \"m\"\napi_key = \"env:NATIVE_TEST_NO_SUCH_KEY\"\n",
    )
    .unwrap();
    let (_, e) = env.local(
        "conversation.start",
        json!({"changeId": "m2", "text": "hi", "backend": "rho"}),
    );
    assert_eq!(e["error"]["code"], "unavailable", "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("the environment variable NATIVE_TEST_NO_SUCH_KEY"),
        "{e}"
    );
    // Nothing was started.
    let (_, list) = env.local("conversation.list", json!({}));
    assert_eq!(list["value"]["conversations"], json!([]), "{list}");
}
