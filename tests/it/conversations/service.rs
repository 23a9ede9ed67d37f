//! `conversation.*` end to end through the service: the message journaled and handed to the
//! real Claude Code or Codex once, its answer, steps and permissions read back, identity,
//! stop, and who may call. Asserts stop reasons, counts, side effects and final text.

use crate::support::conversations::{conv_env, ids, option, pending, steps, text};
use rho_mock_model::script;
use serde_json::json;

#[test]
fn a_plain_answer_is_kept_and_the_same_change_id_sends_nothing() {
    let Some(c) = conv_env("conv-plain", 2) else {
        return;
    };
    let started = c.start("c1", "Say hello\nand more", json!({}));
    let conv = started["conversation"]["conversationId"]
        .as_str()
        .unwrap()
        .to_string();
    let mid = started["message"]["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(started["conversation"]["title"], "Say hello");
    assert_eq!(started["conversation"]["backend"], "claude");
    assert_eq!(started["message"]["sentBy"], "local");
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["state"], "ended", "{m}");
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains(script::PLAIN), "{m}");
    let asked = c.mock.requests().len();
    // The same changeId and body: the original, nothing sent.
    let again = c.start("c1", "Say hello\nand more", json!({}));
    assert_eq!(again["message"]["messageId"], mid.as_str());
    assert_eq!(again["message"]["state"], "ended");
    // Another body under the same changeId: conflict.
    let (status, e) = c.env.local(
        "conversation.start",
        json!({"changeId": "c1", "text": "Something else"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );
    let next = c.send(&conv, "c2", "Say hello again");
    let next_id = next["messageId"].as_str().unwrap().to_string();
    let n = c.wait_end(&conv, &next_id);
    assert_eq!(n["stopReason"], "end_turn", "{n}");
    let resent = c.send(&conv, "c2", "Say hello again");
    assert_eq!(resent["messageId"], next_id.as_str());
    assert!(
        c.mock.requests().len() > asked,
        "the second message reached the model"
    );
    // Claude Code may still make a side request of its own after the turn ended: wait for quiet.
    let quiet = std::time::Duration::from_secs(2);
    let settled = c.mock.settled(quiet, std::time::Duration::from_secs(30));
    c.send(&conv, "c2", "Say hello again");
    assert_eq!(
        c.mock.settled(quiet, std::time::Duration::from_secs(30)),
        settled,
        "a resend sends nothing"
    );
    let list = c.env.local("conversation.list", json!({})).1;
    let all = list["value"]["conversations"].as_array().unwrap();
    assert_eq!(all.len(), 1, "{list}");
    assert_eq!(all[0]["messageCount"], 2);
    assert_eq!(all[0]["state"], "idle");
    let (_, snap) = c.env.local("observation.snapshot", json!({}));
    assert_eq!(
        snap["value"]["conversations"][0]["conversationId"],
        conv.as_str(),
        "{snap}"
    );
    assert!(
        c.env.snapshot().get("conversations").is_none(),
        "not for the operator"
    );
    // Operators and Agent grants may not converse.
    let (status, e) = c.env.call("conversation.list", json!({}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{e}"
    );
    assert_eq!(c.mock.connect_attempts(), Vec::<String>::new());
}

#[test]
fn a_command_step_is_retained_with_its_output_and_exit_code() {
    let Some(c) = conv_env("conv-command", 2) else {
        return;
    };
    let started = c.start(
        "k1",
        "[[bash: printf 'first\\nsecond\\n'; touch made.txt]]",
        json!({}),
    );
    let conv = started["conversation"]["conversationId"]
        .as_str()
        .unwrap()
        .to_string();
    let mid = started["message"]["messageId"]
        .as_str()
        .unwrap()
        .to_string();
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(
        c.env.dir.join("made.txt").exists(),
        "the command ran in the project"
    );
    let step = steps(&m).first().cloned().expect("a step");
    assert_eq!(step["category"], "execute", "{step}");
    assert!(
        step["input"].as_str().unwrap().contains("touch made.txt"),
        "{step}"
    );
    assert_eq!(step["purpose"], "Run the scripted command", "{step}");
    assert!(
        step["lastLines"].as_str().unwrap().ends_with("second"),
        "{step}"
    );
    assert_eq!(step["exitCode"], 0, "{step}");
    assert!(text(&m).contains("FINAL: tool said:"), "{m}");
    // Text, then the step, then text: the parts keep the Agent's order.
    let kinds: Vec<&str> = m["parts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds.last(), Some(&"text"), "{kinds:?}");
}

#[test]
fn permissions_are_answered_with_only_the_offered_options_and_stale_ones_are_refused() {
    let Some(c) = conv_env("conv-permission", 2) else {
        return;
    };
    let (conv, mid) = ids(&c.start(
        "p1",
        "[[bash: touch asked.txt]]",
        json!({"mode": "default"}),
    ));
    let p = c.pending(&conv, &mid);
    assert_eq!(c.read(&conv)["conversation"]["state"], "waiting");
    let request = p["requestId"].as_str().unwrap();
    let (status, e) = c.answer(&conv, request, "not-offered");
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid")),
        "{e}"
    );
    let (status, e) = c.answer(&conv, "someone-elses", &option(&p, "allow_once"));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{e}"
    );
    let (status, v) = c.answer(&conv, request, &option(&p, "allow_once"));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["permission"]["state"], "chosen");
    assert_eq!(v["value"]["permission"]["chosenBy"], "local");
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert_eq!(m["permissions"].as_array().unwrap().len(), 1, "{m}");
    assert!(c.env.dir.join("asked.txt").exists());
    let (status, e) = c.answer(&conv, request, &option(&p, "allow_once"));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "stale: {e}"
    );
    // Rejected: the command does not run.
    let next = c.send(&conv, "p2", "[[bash: touch rejected.txt]]");
    let nid = next["messageId"].as_str().unwrap();
    let p = c.pending(&conv, nid);
    let (status, v) = c.answer(
        &conv,
        p["requestId"].as_str().unwrap(),
        &option(&p, "reject_once"),
    );
    assert_eq!(status, 200, "{v}");
    let m = c.wait_end(&conv, nid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(!c.env.dir.join("rejected.txt").exists());
}

#[test]
fn stop_cancels_a_pending_permission_and_a_streaming_answer() {
    let Some(c) = conv_env("conv-stop", 2) else {
        return;
    };
    let (conv, mid) = ids(&c.start(
        "s1",
        "[[bash: touch never.txt]]",
        json!({"mode": "default"}),
    ));
    c.pending(&conv, &mid);
    let m = c.stop(&conv);
    assert_eq!(
        (m["state"].as_str(), m["stopReason"].as_str()),
        (Some("ended"), Some("cancelled")),
        "{m}"
    );
    assert_eq!(m["permissions"][0]["state"], "cancelled", "{m}");
    assert!(!c.env.dir.join("never.txt").exists());
    let (status, e) = c
        .env
        .local("conversation.stop", json!({"conversationId": conv}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "nothing runs: {e}"
    );
    let next = c.send(&conv, "s2", "[[slow]]");
    let nid = next["messageId"].as_str().unwrap();
    c.wait(&conv, nid, "text streams", |m| !text(m).is_empty());
    let (status, e) = c.env.local(
        "conversation.send",
        json!({"conversationId": conv, "changeId": "s3", "text": "meanwhile"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );
    let m = c.stop(&conv);
    assert_eq!(m["stopReason"], "cancelled", "{m}");
    assert!(
        !text(&m).contains(&format!("word{}", script::SLOW_WORDS)),
        "{m}"
    );
    assert!(text(&m).starts_with("word1 "), "what streamed is kept: {m}");
}

#[test]
fn an_api_error_ends_the_message_and_the_next_one_recovers() {
    let Some(c) = conv_env("conv-error", 0) else {
        return;
    };
    let (conv, mid) = ids(&c.start("e1", "[[error]]", json!({})));
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["state"], "ended", "{m}");
    assert!(
        m["stopReason"] == "error" || m["error"].is_object() || text(&m).contains("500"),
        "the error is visible: {m}"
    );
    let next = c.send(&conv, "e2", "Say hello");
    let n = c.wait_end(&conv, next["messageId"].as_str().unwrap());
    assert_eq!(n["stopReason"], "end_turn", "{n}");
    assert!(text(&n).contains(script::PLAIN), "{n}");
}

#[test]
fn rhos_mcp_tools_are_called_through_the_conversations_own_grant() {
    let Some(c) = conv_env("conv-mcp", 2) else {
        return;
    };
    let (conv, mid) = ids(&c.start("m1", "[[mcp: rho_index|{}]]", json!({"mode": "default"})));
    let end = c.wait(&conv, &mid, "the call is asked or ends", |m| {
        m["state"] != "running" || pending(m).is_some()
    });
    if let Some(p) = pending(&end) {
        let (status, v) = c.answer(
            &conv,
            p["requestId"].as_str().unwrap(),
            &option(&p, "allow_once"),
        );
        assert_eq!(status, 200, "{v}");
    }
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(
        steps(&m).iter().any(|s| s["title"]
            .as_str()
            .unwrap_or_default()
            .contains("rho_index")),
        "{m}"
    );
    let session = format!("agent:conversation-{}", &conv.replace('-', "")[..12]);
    assert!(
        text(&m).contains(&session["agent:".len()..]),
        "the index names the grant: {m}"
    );
    let snap = c.env.wait_activity(1);
    assert!(
        snap["activity"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["principal"] == session.as_str() && a["method"] == "capability.index"),
        "{snap}"
    );
}

#[test]
fn kill_9_mid_turn_leaves_the_message_unknown_and_the_next_one_continues_the_session() {
    let Some(mut c) = conv_env("conv-kill", 2) else {
        return;
    };
    let (conv, mid) = ids(&c.start("k1", "Say hello", json!({})));
    c.wait_end(&conv, &mid);
    let session = c.read(&conv)["conversation"]["agentSessionId"].clone();
    assert!(session.is_string(), "{session}");
    let next = c.send(&conv, "k2", "[[slow]]");
    let nid = next["messageId"].as_str().unwrap().to_string();
    c.wait(&conv, &nid, "text streams", |m| !text(m).is_empty());
    let adapters = c.adapters();
    assert!(!adapters.is_empty(), "an adapter runs in the project");
    c.restart();
    crate::support::poll::until(
        "the adapters are gone",
        std::time::Duration::from_secs(20),
        || {
            adapters
                .iter()
                .all(|p| crate::support::conversations::gone(*p))
        },
    );
    let m = c.message(&conv, &nid);
    assert_eq!(m["state"], "unknown", "{m}");
    let seen = c.mock.requests().len();
    std::thread::sleep(std::time::Duration::from_secs(2));
    assert_eq!(c.mock.requests().len(), seen, "nothing is replayed");
    let after = c.send(&conv, "k3", "Say hello again");
    let a = c.wait_end(&conv, after["messageId"].as_str().unwrap());
    assert_eq!(a["stopReason"], "end_turn", "{a}");
    assert_eq!(
        c.read(&conv)["conversation"]["agentSessionId"],
        session,
        "the same Agent session"
    );
}

#[test]
fn codex_answers_and_runs_a_command() {
    let Some(c) = conv_env("conv-codex", 2) else {
        return;
    };
    let (conv, mid) = ids(&c.start("x1", "Say hello", json!({"backend": "codex"})));
    assert_eq!(c.read(&conv)["conversation"]["backend"], "codex");
    let m = c.wait_end(&conv, &mid);
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains(script::PLAIN), "{m}");
    let next = c.send(&conv, "x2", "[[bash: printf 'first\\nsecond\\n'; exit 4]]");
    let n = c.wait_end(&conv, next["messageId"].as_str().unwrap());
    assert_eq!(n["stopReason"], "end_turn", "{n}");
    let step = steps(&n).first().cloned().expect("a step");
    assert_eq!(
        (step["category"].as_str(), step["exitCode"].as_i64()),
        (Some("execute"), Some(4)),
        "{step}"
    );
    assert!(
        step["lastLines"].as_str().unwrap().contains("second"),
        "{step}"
    );
}
