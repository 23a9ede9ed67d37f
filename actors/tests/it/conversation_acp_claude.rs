//! Claude Code through claude-agent-acp on the scripted model endpoint: answers, command and
//! file-write steps, permissions allowed/rejected/cancelled, stop while streaming, an API error.
//! Asserts stop reasons, permission counts, side effects and final text only.

use crate::support::agents::{
    agent_env, assert_finished, assert_offline, finish, plain_turn, serial, start,
    stop_while_streaming,
};
use rho_actors::agent::conversation::{Backend, TurnEvent};
use rho_mock_model::script;
use std::time::Duration;

#[tokio::test]
async fn claude_answers_plain_text_and_reports_its_pinned_versions() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_answers_plain_text", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    assert_eq!(s.agent_info["version"], "0.101.0");
    s.prompt("Say hello");
    let (end, asked) = finish(&mut s, None).await;
    assert_finished(&end, "end_turn");
    assert_eq!(asked, 0);
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    let agents = env.mock.user_agents();
    assert!(
        agents.iter().any(|a| a.starts_with("claude-cli/2.1.332")),
        "{agents:?}"
    );
    assert_offline(&env);
}

#[tokio::test]
async fn claude_runs_a_command_and_its_step_is_retained() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_runs_a_command", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.prompt("[[bash: printf 'first\\nsecond\\n'; touch made.txt]]");
    let (end, asked) = finish(&mut s, None).await;
    assert_finished(&end, "end_turn");
    assert_eq!(asked, 0, "auto mode asks nothing");
    assert!(env.cwd().join("made.txt").exists());
    let step = s.message.steps.first().expect("a tool step").clone();
    assert_eq!(step.kind, "execute");
    assert!(
        step.input
            .as_deref()
            .unwrap_or_default()
            .contains("touch made.txt"),
        "{step:?}"
    );
    assert_eq!(step.purpose.as_deref(), Some("Run the scripted command"));
    assert!(step.output.ends_with("second"), "{step:?}");
    assert!(step.started_ms > 0);
    assert!(
        s.message.text.contains("FINAL: tool said:"),
        "{:?}",
        s.message.text
    );
    assert_offline(&env);
}

#[tokio::test]
async fn claude_reports_a_failing_commands_exit_code() {
    let _serial = serial().await;
    let Some(env) = agent_env(
        "claude_reports_a_failing_command",
        Backend::ClaudeAgentAcp,
        2,
    ) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    // Auto mode's safety check would need a real classifier model: ask instead.
    s.set_mode("default").await.unwrap();
    s.prompt("[[bash: echo before; exit 3]]");
    let (end, _) = finish(&mut s, Some("allow_once")).await;
    assert_finished(&end, "end_turn");
    let step = s.message.steps.first().expect("a tool step").clone();
    assert_eq!(step.exit_code, Some(3), "{step:?}");
    assert_eq!(step.status, "failed", "{step:?}");
}

/// Claude in `default` mode asks before `touch`; `kind` answers the one request.
async fn claude_permission(test: &str, kind: Option<&str>) -> Option<(TurnEvent, usize, bool)> {
    let env = agent_env(test, Backend::ClaudeAgentAcp, 2)?;
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.set_mode("default").await.unwrap();
    s.prompt("[[bash: touch asked.txt]]");
    let result = match kind {
        Some(k) => finish(&mut s, Some(k)).await,
        None => {
            let mut asked = 0;
            loop {
                match tokio::time::timeout(Duration::from_secs(90), s.next())
                    .await
                    .unwrap()
                {
                    TurnEvent::Changed => {}
                    TurnEvent::Permission(p) => {
                        asked += 1;
                        assert!(p.option("allow_once").is_some(), "{p:?}");
                        s.cancel();
                        assert!(
                            !s.answer(&p, "allow"),
                            "a cancelled request is no longer pending"
                        );
                    }
                    other => break (other, asked),
                }
            }
        }
    };
    assert_offline(&env);
    Some((result.0, result.1, env.cwd().join("asked.txt").exists()))
}

#[tokio::test]
async fn claude_permission_allowed_runs_the_command() {
    let _serial = serial().await;
    let Some((end, asked, made)) =
        claude_permission("claude_permission_allowed", Some("allow_once")).await
    else {
        return;
    };
    assert_finished(&end, "end_turn");
    assert_eq!((asked, made), (1, true));
}

#[tokio::test]
async fn claude_permission_rejected_leaves_no_file() {
    let _serial = serial().await;
    let Some((end, asked, made)) =
        claude_permission("claude_permission_rejected", Some("reject_once")).await
    else {
        return;
    };
    assert_finished(&end, "end_turn");
    assert_eq!((asked, made), (1, false));
}

#[tokio::test]
async fn claude_permission_cancelled_by_stop() {
    let _serial = serial().await;
    let Some((end, asked, made)) = claude_permission("claude_permission_cancelled", None).await
    else {
        return;
    };
    assert_finished(&end, "cancelled");
    assert_eq!((asked, made), (1, false));
}

#[tokio::test]
async fn claude_stop_while_streaming_is_confirmed_and_the_next_prompt_works() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_stop_while_streaming", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    let end = stop_while_streaming(&mut s).await;
    assert_finished(&end, "cancelled");
    assert!(
        !s.message
            .text
            .contains(&format!("word{}", script::SLOW_WORDS)),
        "{:?}",
        s.message.text
    );
    plain_turn(&mut s, "Say hello again").await;
}

#[tokio::test]
async fn claude_api_error_fails_the_turn_and_the_next_one_recovers() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_api_error", Backend::ClaudeAgentAcp, 0) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.prompt("[[error]]");
    let (end, _) = finish(&mut s, None).await;
    assert!(matches!(end, TurnEvent::Failed(_)), "{end:?}");
    plain_turn(&mut s, "Say hello").await;
}

#[tokio::test]
async fn claude_writes_a_file_after_the_permission_offering_allow_always() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_writes_a_file", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.set_mode("default").await.unwrap();
    let target = env.cwd().join("notes.txt");
    s.prompt(&format!(
        "[[write: {}|written by the agent]]",
        target.display()
    ));
    let mut kinds = Vec::new();
    let end = loop {
        match tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .unwrap()
        {
            TurnEvent::Changed => {}
            TurnEvent::Permission(p) => {
                kinds = p.options.iter().map(|(_, k, _)| k.clone()).collect();
                let id = p.option("allow_once").unwrap().to_string();
                assert!(s.answer(&p, &id));
            }
            other => break other,
        }
    };
    assert_finished(&end, "end_turn");
    assert!(kinds.iter().any(|k| k == "allow_always"), "{kinds:?}");
    assert_eq!(
        std::fs::read_to_string(&target).unwrap(),
        "written by the agent"
    );
    let step = s.message.steps.first().expect("a tool step").clone();
    assert_eq!(step.kind, "edit", "{step:?}");
    assert_eq!(
        step.input.as_deref(),
        Some(target.to_str().unwrap()),
        "{step:?}"
    );
    assert!(
        step.output.is_empty(),
        "only a command keeps output: {step:?}"
    );
}
