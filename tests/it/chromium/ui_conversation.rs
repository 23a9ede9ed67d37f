//! The Conversations panel in Chromium (issue 17) against the real service driving the real Claude Code
//! (claude-agent-acp) on the scripted model: a plain answer, a command's permission allowed and its exit code, a stop,
//! two decisions on the plain answer, the Agent's write shown live in the open editor, axe at 1600 and 390; what the
//! panel showed is then read back from the service.

use crate::support::browser;
use crate::support::conversations::conv_env;
use serde_json::json;

#[test]
fn the_conversations_panel_streams_asks_and_stops() {
    let Some(c) = conv_env("conv-ui", 2) else {
        return;
    };
    std::fs::write(c.env.dir.join("analysis.R"), "x <- 1").unwrap();
    let artifacts = browser::artifacts("conversation");
    let facts = browser::run_e2e("e2e-conversation.mjs", &c.env, "", &artifacts, &[]);
    for size in ["1600", "390"] {
        assert_eq!(
            facts["facts"][format!("axe_conversation_{size}")],
            0,
            "{size}"
        );
    }
    assert!(artifacts.join("conversation-390x844.png").exists());

    // What the panel showed is the service's record.
    let local = |op: &str, body: serde_json::Value| {
        let (status, v) = c.env.local(op, body);
        assert_eq!(status, 200, "{op}: {v}");
        v["value"].clone()
    };
    let list = local("conversation.list", json!({}));
    let conversations = list["conversations"].as_array().unwrap();
    assert_eq!(conversations.len(), 1, "{list}");
    let conv = &conversations[0];
    assert_eq!(conv["backend"], "claude", "{conv}");
    let read = local(
        "conversation.read",
        json!({"conversationId": conv["conversationId"], "limit": 100}),
    );
    let messages = read["messages"].as_array().unwrap();
    let reasons: Vec<&str> = messages
        .iter()
        .map(|m| m["stopReason"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(
        reasons,
        ["end_turn", "end_turn", "cancelled", "end_turn"],
        "{read}"
    );
    let stopped = crate::support::conversations::text(&messages[2]);
    assert!(
        stopped.starts_with("word1 "),
        "what streamed before the stop is kept: {read}"
    );
    let decisions = messages[0]["decisions"].as_array().unwrap();
    let kinds: Vec<&str> = decisions
        .iter()
        .map(|d| d["decision"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["accepted", "needs-changes"], "{read}");
    assert_eq!(decisions[1]["supersedes"], decisions[0]["decisionId"]);
    assert_eq!(decisions[1]["note"], "Say it in French");
    assert_eq!(decisions[0]["by"], "local");
    assert_eq!(
        std::fs::read_to_string(c.env.dir.join("analysis.R")).unwrap(),
        "y <- 2"
    );
    assert!(
        messages[3]["kept"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["path"] == "analysis.R"),
        "{read}"
    );
    let asked = messages[1]["permissions"].as_array().unwrap();
    assert_eq!(asked.len(), 1, "{read}");
    assert_eq!(asked[0]["state"], "chosen", "{read}");
    assert_eq!(asked[0]["chosenBy"], "local", "{read}");
    let step = messages[1]["parts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["kind"] == "step")
        .expect("the command is a step");
    assert_eq!(step["step"]["exitCode"], 3, "{step}");
    assert_eq!(c.mock.connect_attempts(), Vec::<String>::new());
}
