//! A conversation whose Agent session cannot be loaded after a restart says so and waits for
//! the person's choice (never a silent fresh context): continued in a fresh Agent session given
//! a summary of its messages, through the service with the real Claude Code.

use crate::support::conversations::{conv_env, text};
use rho_mock_model::script;
use serde_json::json;

#[test]
fn a_session_that_cannot_be_loaded_waits_for_the_persons_choice() {
    let Some(mut c) = conv_env("conv-resume", 2) else {
        return;
    };
    let (conv, m) = c.converse("r1", "Count the rows of the sample table", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    let old = c.read(&conv)["conversation"]["agentSessionId"].clone();
    assert!(old.is_string(), "{old}");
    c.restart();
    // Claude Code's own record of the session is gone.
    let sessions = c.home.join(".claude/projects");
    assert!(
        sessions.exists(),
        "Claude Code kept its session under {sessions:?}"
    );
    std::fs::remove_dir_all(&sessions).unwrap();

    let next = c.send(&conv, "r2", "Say hello");
    let n = c.wait_end(&conv, next["messageId"].as_str().unwrap());
    assert_eq!(n["error"]["code"], "needs_choice", "{n}");
    let read = c.read(&conv);
    assert_eq!(read["conversation"]["state"], "needs-choice", "{read}");
    let note = read["conversation"]["note"].as_str().unwrap().to_string();
    assert!(
        note.contains("could not be continued") && note.contains("fresh"),
        "{note}"
    );
    // Without a choice nothing is sent.
    let (status, e) = c.env.local(
        "conversation.send",
        json!({"conversationId": conv, "changeId": "r3", "text": "Say hello"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains("freshSession"),
        "{e}"
    );
    // The person chooses a fresh session: it is given a summary of the conversation.
    let (status, v) = c.env.local(
        "conversation.send",
        json!({"conversationId": conv, "changeId": "r4", "text": "Say hello", "freshSession": true}),
    );
    assert_eq!(status, 200, "{v}");
    let f = c.wait_end(&conv, v["value"]["message"]["messageId"].as_str().unwrap());
    assert_eq!(f["stopReason"], "end_turn", "{f}");
    assert!(text(&f).contains(script::PLAIN), "{f}");
    let read = c.read(&conv);
    assert_eq!(read["conversation"]["state"], "idle", "{read}");
    let new = &read["conversation"]["agentSessionId"];
    assert!(
        new.is_string() && *new != old,
        "a new Agent session: {new} after {old}"
    );
    let saw = c.model_saw();
    assert!(
        saw.contains("The person wrote: Count the rows of the sample table"),
        "the fresh session got the summary"
    );
    // It goes on in that session.
    let after = c.send(&conv, "r5", "Say hello again");
    let a = c.wait_end(&conv, after["messageId"].as_str().unwrap());
    assert_eq!(a["stopReason"], "end_turn", "{a}");
    assert_eq!(c.read(&conv)["conversation"]["agentSessionId"], *new);
}
