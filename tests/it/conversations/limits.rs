//! The `conversations` limits of `--limits` applied by the service with the real Claude Code:
//! the step and wall-time caps end a message naming their key; a step's output, a message's
//! text, the messages of a conversation and the conversations of a project are bounded, each
//! cut, refusal or removal naming its key.

use crate::support::conversations::{conv_env_with, ids, steps, text};
use rho_mock_model::script;
use serde_json::json;

#[test]
fn the_step_cap_ends_a_message_naming_its_limit() {
    let limits = json!({"conversations": {"maxAgentTurns": 1}});
    let Some(c) = conv_env_with("conv-turns", 2, Some(limits), &[]) else {
        return;
    };
    let (conv, m) = c.converse(
        "t1",
        "[[bash: touch capped.txt]]",
        json!({"mode": "default"}),
    );
    assert_eq!(m["stopReason"], "max_turn_requests", "{m}");
    assert_eq!(m["error"]["code"], "limit", "{m}");
    assert!(
        m["error"]["message"]
            .as_str()
            .unwrap()
            .contains("conversations.maxAgentTurns"),
        "{m}"
    );
    assert!(
        !c.env.dir.join("capped.txt").exists(),
        "the step did not run"
    );
    // A plain answer is one turn: under the cap.
    let plain = c.send(&conv, "t2", "Say hello");
    let p = c.wait_end(&conv, plain["messageId"].as_str().unwrap());
    assert_eq!(p["stopReason"], "end_turn", "{p}");
    assert!(text(&p).contains(script::PLAIN), "{p}");
}

#[test]
fn the_wall_time_cap_stops_a_message_naming_its_limit() {
    let limits = json!({"conversations": {"turnWallMs": 3000}});
    let Some(c) = conv_env_with("conv-wall", 2, Some(limits), &[]) else {
        return;
    };
    // [[slow]] streams for six seconds: the cap stops it.
    let (_, n) = c.converse("w1", "[[slow]]", json!({}));
    assert_eq!(n["error"]["code"], "limit", "{n}");
    assert!(
        n["error"]["message"]
            .as_str()
            .unwrap()
            .contains("conversations.turnWallMs"),
        "{n}"
    );
    assert_eq!(n["stopReason"], "cancelled", "{n}");
    let said = text(&n);
    assert!(
        !said.contains(&format!("word{}", script::SLOW_WORDS)),
        "stopped before the end: {said:?}"
    );
}

#[test]
fn output_text_messages_and_conversations_are_bounded_and_what_goes_is_named() {
    let limits = json!({"conversations": {
        "maxOutputLines": 2, "maxMessages": 2, "maxConversations": 1, "maxMessageBytes": 8192
    }});
    let Some(c) = conv_env_with("conv-bounds", 2, Some(limits), &[]) else {
        return;
    };
    let (conv, m) = c.converse("b1", "[[bash: printf 'l1\\nl2\\nl3\\nl4\\n']]", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let step = steps(&m).first().cloned().expect("a step");
    assert_eq!(step["lastLines"], "l3\nl4", "{step}");
    let cut = &m["cut"];
    assert!(
        cut["limits"]
            .as_array()
            .unwrap()
            .iter()
            .any(|k| k == "conversations.maxOutputLines"),
        "the cut names its key: {m}"
    );
    // A message over maxMessageBytes is refused, naming the key; nothing is sent.
    let (status, e) = c.env.local(
        "conversation.send",
        json!({"conversationId": conv, "changeId": "big", "text": "x".repeat(9000)}),
    );
    assert_eq!(
        (status, e["error"]["details"]["limit"].as_str()),
        (429, Some("conversations.maxMessageBytes")),
        "{e}"
    );
    // The third message makes the first go (maxMessages 2), and says so.
    for change in ["b2", "b3"] {
        let next = c.send(&conv, change, "Say hello");
        c.wait_end(&conv, next["messageId"].as_str().unwrap());
    }
    let read = c.read(&conv);
    assert_eq!(read["messages"].as_array().unwrap().len(), 2, "{read}");
    assert_eq!(
        read["conversation"]["dropped"],
        json!({"count": 1, "limit": "conversations.maxMessages"}),
        "{read}"
    );
    let (status, e) = c.env.local(
        "conversation.start",
        json!({"changeId": "b1", "text": "[[bash: printf 'l1\\nl2\\nl3\\nl4\\n']]"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (410, Some("expired")),
        "the retry of a message that went: {e}"
    );
    // A second conversation makes the first (idle) go (maxConversations 1).
    let (second, _) = ids(&c.start("b4", "Say hello", json!({})));
    let list = c.env.local("conversation.list", json!({})).1;
    let listed = list["value"]["conversations"].as_array().unwrap();
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(listed[0]["conversationId"], second.as_str());
    assert_eq!(
        list["value"]["removed"],
        json!({"count": 1, "limit": "conversations.maxConversations"}),
        "{list}"
    );
    let (status, e) = c
        .env
        .local("conversation.read", json!({"conversationId": conv}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (410, Some("expired")),
        "{e}"
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("conversations.maxConversations"),
        "{e}"
    );
}
