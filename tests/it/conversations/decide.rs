//! `conversation.decide` through the service with the real Claude Code: a decision holds the
//! exact file versions the message kept (captured into Files' store), needs-changes needs a
//! note, a later decision names the one it supersedes and every earlier one is kept, the
//! changeId identity holds, and only the local browser may decide.

use crate::support::conversations::{conv_env, steps};
use serde_json::{json, Value};

fn decide(c: &crate::support::conversations::ConvEnv, body: Value) -> (u16, Value) {
    c.env.local("conversation.decide", body)
}

#[test]
fn a_decision_holds_the_file_versions_its_message_kept_and_later_ones_supersede_it() {
    let Some(c) = conv_env("conv-decide", 2) else {
        return;
    };
    let file = c.env.dir.join("result.txt");
    let (conv, m) = c.converse(
        "d1",
        &format!("[[write: {}|first version]]", file.display()),
        json!({"mode": "acceptEdits"}),
    );
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "first version");
    assert!(
        steps(&m).iter().any(|s| s["category"] == "edit"),
        "the write is a step: {m}"
    );
    let kept = m["kept"].as_array().unwrap().clone();
    let result = kept
        .iter()
        .find(|f| f["path"] == "result.txt")
        .unwrap_or_else(|| panic!("the written file is kept: {m}"));
    assert_eq!(
        result["digest"],
        format!("sha256:{}", crate::support::sha256_hex(b"first version")),
        "{result}"
    );
    let resource = result["resource"].clone();
    assert!(resource["id"].is_string(), "captured into Files: {result}");
    let mid = m["messageId"].as_str().unwrap().to_string();
    let base = json!({"conversationId": conv, "messageId": mid});
    let with = |extra: Value| {
        let mut b = base.clone();
        for (k, v) in extra.as_object().unwrap() {
            b[k] = v.clone();
        }
        b
    };

    // needs-changes needs a note; an unknown word is refused; nothing is recorded.
    let (status, e) = decide(
        &c,
        with(json!({"decision": "needs-changes", "changeId": "x1"})),
    );
    assert_eq!(
        (status, e["error"]["details"]["field"].as_str()),
        (400, Some("note")),
        "{e}"
    );
    let (status, e) = decide(&c, with(json!({"decision": "maybe", "changeId": "x2"})));
    assert_eq!(status, 400, "{e}");

    let (status, first) = decide(&c, with(json!({"decision": "accepted", "changeId": "k1"})));
    assert_eq!(status, 200, "{first}");
    let d1 = first["value"]["decision"].clone();
    assert_eq!(d1["decision"], "accepted");
    assert_eq!(d1["by"], "local");
    assert_eq!(
        d1["resources"],
        json!(kept),
        "the exact versions the message kept"
    );
    // The same changeId and body: the original; another body under it: conflict.
    let (_, again) = decide(&c, with(json!({"decision": "accepted", "changeId": "k1"})));
    assert_eq!(again["value"]["decision"]["decisionId"], d1["decisionId"]);
    let (status, e) = decide(
        &c,
        with(json!({"decision": "accepted", "note": "other", "changeId": "k1"})),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );

    // A later decision names the one it supersedes.
    let note =
        json!({"decision": "needs-changes", "note": "use the second file", "changeId": "k2"});
    let (status, e) = decide(&c, with(note.clone()));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "unnamed: {e}"
    );
    let mut named = note;
    named["supersedes"] = d1["decisionId"].clone();
    let (status, second) = decide(&c, with(named));
    assert_eq!(status, 200, "{second}");
    let d2 = second["value"]["decision"].clone();
    assert_eq!(d2["supersedes"], d1["decisionId"]);
    assert_eq!(d2["note"], "use the second file");

    // A file changed later is not covered: the decision keeps the version it held.
    std::fs::write(&file, "changed afterwards").unwrap();
    let m = c.message(&conv, &mid);
    let decisions = m["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 2, "every earlier decision is kept: {m}");
    assert_eq!(decisions[0]["resources"], json!(kept));
    let (status, bytes) = c.env.local(
        "resource.read",
        json!({"resource": {"id": resource["id"], "version": resource["version"]}}),
    );
    assert_eq!(status, 200, "{bytes}");
    assert_eq!(
        bytes["value"]["sha256"],
        crate::support::sha256_hex(b"first version"),
        "the captured version stays readable"
    );

    // Only the local browser: a paired tab, the operator and an Agent grant are refused.
    let d3 =
        with(json!({"decision": "accepted", "changeId": "k3", "supersedes": d2["decisionId"]}));
    let (status, e) = c.paired("conversation.decide", d3.clone());
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{e}"
    );
    let (status, _) = c.paired("conversation.read", json!({"conversationId": conv}));
    assert_eq!(status, 200, "a paired tab still reads the conversation");
    let (status, e) = c.env.call("conversation.decide", d3.clone());
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{e}"
    );
    c.env.grant("decider", None);
    let token = c.env.token("decider");
    let (status, e) = c.env.agent_call(&token, "conversation.decide", d3);
    assert!(
        status == 403 || status == 404,
        "an Agent grant never decides: {status} {e}"
    );
    assert_eq!(
        c.message(&conv, &mid)["decisions"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}
