//! The ACP session layer against the real Claude Code (claude-agent-acp) and Codex (codex-acp)
//! on the scripted model endpoint: answers, tool steps, permissions, cancel, errors, the adapter
//! group's end. Asserts stop reasons, permission counts, side effects and final text only.

use crate::support::agents::{agent_env, serial, AgentEnv};
use rho_actors::agent::conversation::{
    AgentSession, Backend, LaunchError, RecordLimits, SessionError, TurnEvent,
};
use rho_mock_model::script;
use std::time::Duration;

async fn start(env: &AgentEnv, backend: Backend) -> AgentSession {
    let s = AgentSession::start(
        &env.runtimes,
        backend,
        &env.cwd(),
        Vec::new(),
        None,
        RecordLimits::default(),
    )
    .await;
    match s {
        Ok(s) => s,
        Err(e) => panic!("session did not start: {e}"),
    }
}

/// Runs the turn to its end, answering permissions with `choose` (an option kind, or None to
/// leave it pending); returns the final event and how many permissions were asked.
async fn finish(s: &mut AgentSession, choose: Option<&str>) -> (TurnEvent, usize) {
    let mut asked = 0;
    loop {
        let e = tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .expect("the turn ended within 90 s");
        match e {
            TurnEvent::Changed => {}
            TurnEvent::Permission(p) => {
                asked += 1;
                if let Some(kind) = choose {
                    let id = p.option(kind).expect("the option was offered").to_string();
                    assert!(s.answer(&p, &id));
                    assert!(!s.answer(&p, &id), "a stale request is refused");
                }
            }
            other => return (other, asked),
        }
    }
}

fn assert_offline(env: &AgentEnv) {
    assert_eq!(
        env.mock.connect_attempts(),
        Vec::<String>::new(),
        "no foreign hosts"
    );
}

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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert_eq!((asked, made), (1, false));
}

#[tokio::test]
async fn claude_permission_cancelled_by_stop() {
    let _serial = serial().await;
    let Some((end, asked, made)) = claude_permission("claude_permission_cancelled", None).await
    else {
        return;
    };
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "cancelled"),
        "{end:?}"
    );
    assert_eq!((asked, made), (1, false));
}

#[tokio::test]
async fn claude_stop_while_streaming_is_confirmed_and_the_next_prompt_works() {
    let _serial = serial().await;
    let Some(env) = agent_env("claude_stop_while_streaming", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.prompt("[[slow]]");
    let end = loop {
        match tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .unwrap()
        {
            TurnEvent::Changed if !s.message.text.is_empty() => s.cancel(),
            TurnEvent::Changed | TurnEvent::Permission(_) => {}
            other => break other,
        }
    };
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "cancelled"),
        "{end:?}"
    );
    assert!(
        !s.message
            .text
            .contains(&format!("word{}", script::SLOW_WORDS)),
        "{:?}",
        s.message.text
    );
    s.prompt("Say hello again");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
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
    s.prompt("Say hello");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
}

#[tokio::test]
async fn a_killed_adapter_is_a_lost_turn_and_dropping_a_session_ends_its_group() {
    let _serial = serial().await;
    let Some(env) = agent_env("a_killed_adapter", Backend::ClaudeAgentAcp, 2) else {
        return;
    };
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    let pgid = s.adapter().pgid().unwrap();
    s.prompt("[[slow]]");
    loop {
        if let TurnEvent::Changed = s.next().await {
            if !s.message.text.is_empty() {
                break;
            }
        }
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let (end, _) = finish(&mut s, None).await;
    assert!(matches!(end, TurnEvent::Lost), "{end:?}");
    drop(s);
    crate::support::until("the adapter's process group is gone", async || {
        nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_err()
    })
    .await;
}

#[tokio::test]
async fn a_missing_adapter_is_unavailable_naming_it_and_the_install_command() {
    let dir = tempfile::tempdir().unwrap();
    let runtimes = rho_actors::agent::conversation::Runtimes {
        node: dir.path().join("node"),
        adapters: dir.path().join("acp-adapters"),
        claude: dir.path().join("claude"),
        codex: dir.path().join("codex"),
        env: Vec::new(),
    };
    let e = AgentSession::start(
        &runtimes,
        Backend::CodexAcp,
        dir.path(),
        Vec::new(),
        None,
        RecordLimits::default(),
    )
    .await
    .err()
    .expect("no session without the adapter");
    let SessionError::Launch(LaunchError::Unavailable {
        missing, install, ..
    }) = &e
    else {
        panic!("{e}");
    };
    assert!(
        missing
            .iter()
            .any(|m| m.contains("codex-acp/dist/index.js")),
        "{missing:?}"
    );
    assert!(
        install.contains("@agentclientprotocol/codex-acp@2.6.0"),
        "{install}"
    );
    assert!(install.contains("--omit=optional"), "{install}");
    assert!(e.to_string().contains("unavailable"), "{e}");
}

#[tokio::test]
async fn codex_answers_and_runs_a_command() {
    let _serial = serial().await;
    let Some(env) = agent_env("codex_answers_and_runs_a_command", Backend::CodexAcp, 4) else {
        return;
    };
    let mut s = start(&env, Backend::CodexAcp).await;
    assert_eq!(s.agent_info["version"], "2.6.0");
    s.prompt("Say hello");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    s.prompt("[[bash: printf 'first\\nsecond\\n'; exit 4]]");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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

/// The first prompt appears in the model request of a prompt sent after a restart.
async fn resumed_after_restart(test: &str, backend: Backend) {
    let Some(env) = agent_env(test, backend, 2) else {
        return;
    };
    let mut s = start(&env, backend).await;
    assert!(s.load_session, "{} offers session/load", backend.name());
    let id = s.session_id.clone();
    s.prompt("[[bash: echo pelican]]");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(s.message.text.contains("pelican"), "{:?}", s.message.text);
    drop(s);
    let mut s = AgentSession::start(
        &env.runtimes,
        backend,
        &env.cwd(),
        Vec::new(),
        Some(&id),
        RecordLimits::default(),
    )
    .await
    .unwrap();
    assert_eq!(s.session_id, id);
    // Replayed history arrives as updates before the prompt: it is not the new message's.
    let before = env.mock.requests().len();
    s.prompt("What was the word?");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    assert!(!s.message.text.contains("pelican"), "{:?}", s.message.text);
    let later = env.mock.requests()[before..].to_vec();
    assert!(
        later
            .iter()
            .any(|r| r["body"].to_string().contains("echo pelican")
                && r["body"].to_string().contains("What was the word?")),
        "the resumed session's request holds the earlier prompt"
    );
    assert_offline(&env);
}

#[tokio::test]
async fn claude_continues_the_same_session_after_a_restart() {
    let _serial = serial().await;
    resumed_after_restart("claude_continues_the_same_session", Backend::ClaudeAgentAcp).await;
}

#[tokio::test]
async fn codex_continues_the_same_session_after_a_restart() {
    let _serial = serial().await;
    resumed_after_restart("codex_continues_the_same_session", Backend::CodexAcp).await;
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
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
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
    s.prompt("[[slow]]");
    let end = loop {
        match tokio::time::timeout(Duration::from_secs(90), s.next())
            .await
            .unwrap()
        {
            TurnEvent::Changed if !s.message.text.is_empty() => s.cancel(),
            TurnEvent::Changed | TurnEvent::Permission(_) => {}
            other => break other,
        }
    };
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "cancelled"),
        "{end:?}"
    );
    s.prompt("[[error]]");
    let (end, _) = finish(&mut s, None).await;
    // Codex (no retries) ends the turn and says why in the text.
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        !s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    s.prompt("Say hello");
    let (end, _) = finish(&mut s, None).await;
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(
        s.message.text.contains(script::PLAIN),
        "{:?}",
        s.message.text
    );
    assert_offline(&env);
}

/// Child mode of the test below: start a session, stream, print the adapter's group, wait.
async fn own_a_streaming_session() {
    let env = agent_env("own_a_streaming_session", Backend::ClaudeAgentAcp, 2).unwrap();
    let mut s = start(&env, Backend::ClaudeAgentAcp).await;
    s.prompt("[[slow]]");
    while s.message.text.is_empty() {
        let _ = s.next().await;
    }
    println!("pgid {}", s.adapter().pgid().unwrap());
    loop {
        let _ = s.next().await;
    }
}

#[tokio::test]
async fn kill_9_of_the_owner_mid_turn_takes_the_adapter_group_with_it() {
    use std::io::BufRead;
    if std::env::var_os("RHO_ACP_OWNER").is_some() {
        return own_a_streaming_session().await;
    }
    let _serial = serial().await;
    if agent_env("kill_9_of_the_owner", Backend::ClaudeAgentAcp, 2).is_none() {
        return;
    }
    let base = tempfile::tempdir().unwrap();
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "conversation_acp::kill_9_of_the_owner_mid_turn_takes_the_adapter_group_with_it",
            "--nocapture",
            "--quiet",
            "--test-threads=1",
        ])
        .env("RHO_ACP_OWNER", base.path())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let pgid: i32 = tokio::task::spawn_blocking(move || {
        std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .find_map(|l| l.strip_prefix("pgid ").and_then(|n| n.parse().ok()))
    })
    .await
    .unwrap()
    .expect("the owner printed its adapter's group");
    child.kill().unwrap(); // SIGKILL: no destructor runs in the owner
    child.wait().unwrap();
    crate::support::until("the adapter's process group is gone", async || {
        nix::sys::signal::killpg(nix::unistd::Pid::from_raw(pgid), None).is_err()
    })
    .await;
}
