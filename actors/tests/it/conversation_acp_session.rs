//! An ACP session's life: a missing adapter is unavailable, a killed adapter is a lost turn,
//! the adapter group ends with its owner (also under kill -9), `session/load` after a restart.

#![allow(clippy::print_stdout)] // the owner child reports its adapter's group on stdout

use crate::support::agents::{
    agent_env, assert_finished, assert_offline, finish, plain_turn, serial, start,
};
use rho_actors::agent::conversation::{
    AgentSession, Backend, LaunchError, RecordLimits, SessionError, TurnEvent,
};

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
    assert_finished(&end, "end_turn");
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
    plain_turn(&mut s, "What was the word?").await;
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
            "conversation_acp_session::kill_9_of_the_owner_mid_turn_takes_the_adapter_group_with_it",
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
