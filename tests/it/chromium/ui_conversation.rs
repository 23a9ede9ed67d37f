//! The Conversations panel in Chromium (issue 17) against the real service driving the real Claude Code
//! (claude-agent-acp) on the scripted model: a plain answer, a command's permission allowed and its exit code, a stop,
//! decisions, axe at 1600 and 390; what the panel showed is then read back from the service.

use crate::support::agents::runtimes_or_skip;
use crate::support::{browser, Env};
use rho_actors::agent::conversation::Backend;
use rho_mock_model::isolation::{cli_env, Cli};
use rho_mock_model::MockModel;
use serde_json::json;

#[test]
fn the_conversations_panel_streams_asks_stops_and_decides() {
    let Some(runtimes) = runtimes_or_skip("the_conversations_panel", Backend::ClaudeAgentAcp)
    else {
        return;
    };
    let cli = tempfile::tempdir().unwrap();
    let mock = MockModel::start(cli.path()).unwrap();
    let mut vars = cli_env(Cli::Claude, &mock, cli.path(), &runtimes.node, 2).unwrap();
    vars.push(("RHO_NODE".into(), runtimes.node.display().to_string()));
    vars.push((
        "RHO_ACP_ADAPTERS".into(),
        runtimes.adapters.display().to_string(),
    ));
    vars.push(("RHO_CLAUDE".into(), runtimes.claude.display().to_string()));
    let env_refs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let env = Env::start_with_env(&[], &env_refs, None, "conv-ui");
    let artifacts = browser::artifacts("conversation");
    let facts = browser::run_e2e("e2e-conversation.mjs", &env, "", &artifacts, &[]);
    for size in ["1600", "390"] {
        assert_eq!(
            facts["facts"][format!("axe_conversation_{size}")],
            0,
            "{size}"
        );
    }
    assert!(artifacts.join("conversation-390x844.png").exists());

    // What the panel showed is the service's record.
    let list = env.ok("conversation.list", json!({}));
    let conversations = list["conversations"].as_array().unwrap();
    assert_eq!(conversations.len(), 1, "{list}");
    let c = &conversations[0];
    assert_eq!(c["backend"], "claude", "{c}");
    let read = env.ok(
        "conversation.read",
        json!({"conversationId": c["conversationId"], "limit": 100}),
    );
    let messages = read["messages"].as_array().unwrap();
    let reasons: Vec<&str> = messages
        .iter()
        .map(|m| m["stopReason"].as_str().unwrap_or("none"))
        .collect();
    assert_eq!(reasons, ["end_turn", "end_turn", "cancelled"], "{read}");
    let asked: Vec<&serde_json::Value> = messages[1]["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
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
    let decisions = messages[0]["decisions"].as_array().unwrap();
    assert_eq!(decisions.len(), 2, "{read}");
    assert_eq!(decisions[0]["decision"], "needs-changes");
    assert_eq!(decisions[0]["note"], "Say it in French");
    assert_eq!(decisions[1]["decision"], "accepted");
    assert_eq!(decisions[1]["supersedes"], decisions[0]["decisionId"]);
    assert_eq!(mock.connect_attempts(), Vec::<String>::new());
}
