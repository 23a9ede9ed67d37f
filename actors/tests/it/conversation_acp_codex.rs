//! Codex through codex-acp on the scripted model endpoint: an answer and a command step with its
//! exit code, read-only escalation allowed/rejected, stop while streaming, an API error.

use crate::support::agents::{
    agent_env, assert_finished, assert_offline, finish, plain_turn, serial, start,
    stop_while_streaming,
};
use rho_actors::agent::conversation::{Backend, TurnEvent};
use rho_mock_model::script;

#[tokio::test]
async fn codex_answers_and_runs_a_command() {
    let _serial = serial().await;
    let Some(env) = agent_env("codex_answers_and_runs_a_command", Backend::CodexAcp, 4) else {
        return;
    };
    let mut s = start(&env, Backend::CodexAcp).await;
    assert_eq!(s.agent_info["version"], "2.6.0");
    plain_turn(&mut s, "Say hello").await;
    s.prompt("[[bash: printf 'first\\nsecond\\n'; exit 4]]");
    let (end, _) = finish(&mut s, None).await;
    assert_finished(&end, "end_turn");
    let step = s.message.steps.first().expect("a tool step").clone();
    assert_eq!(step.kind, "execute", "{step:?}");
    assert!(
        step.input.as_deref().unwrap_or_default().contains("printf"),
        "{step:?}"
    );
    assert_eq!(step.exit_code, Some(4), "{step:?}");
    assert!(step.output.contains("second"), "{step:?}");
    assert!(
        s.message.text.contains("FINAL: tool said:"),
        "{:?}",
        s.message.text
    );
    assert!(
        env.mock.user_agents().iter().any(|a| a.contains("0.171.0")),
        "{:?}",
        env.mock.user_agents()
    );
    assert_offline(&env);
}

#[tokio::test]
async fn codex_read_only_asks_for_an_escalated_command_and_a_reject_cancels() {
    let _serial = serial().await;
    for (kind, made) in [("allow_once", true), ("reject_once", false)] {
        let Some(env) = agent_env("codex_permissions", Backend::CodexAcp, 4) else {
            return;
        };
        let mut s = start(&env, Backend::CodexAcp).await;
        s.set_mode("read-only").await.unwrap();
        s.prompt("[[bash!: touch asked.txt]]");
        let (end, asked) = finish(&mut s, Some(kind)).await;
        let stop = if made { "end_turn" } else { "cancelled" };
        assert!(
            matches!(end, TurnEvent::Finished(ref r) if r == stop),
            "{kind}: {end:?}"
        );
        assert_eq!(asked, 1, "{kind}");
        assert_eq!(env.cwd().join("asked.txt").exists(), made, "{kind}");
        assert_offline(&env);
    }
}

#[tokio::test]
async fn codex_stop_while_streaming_and_an_api_error_then_recovery() {
    let _serial = serial().await;
    let Some(env) = agent_env("codex_stop_and_error", Backend::CodexAcp, 0) else {
        return;
    };
    let mut s = start(&env, Backend::CodexAcp).await;
    let end = stop_while_streaming(&mut s).await;
    assert_finished(&end, "cancelled");
    s.prompt("[[error]]");
    let (end, _) = finish(&mut s, None).await;
    // Codex (no retries) ends the turn and says why in the text.
    assert_finished(&end, "end_turn");
    assert!(
        !s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    plain_turn(&mut s, "Say hello").await;
    assert_offline(&env);
}
