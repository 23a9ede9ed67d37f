//! The `claude-cli` driver (`--agent-backend claude-cli`): the real `claude -p` per message with
//! stream-json on the scripted model, the session continued with `--resume`, Rho's MCP tools
//! allowed by the conversation's grant, and a new permission prompt it cannot answer said in
//! the message. And a start without the adapters says so on stderr with the install command.

use crate::support::conversations::{conv_env_with, gone, steps, text};
use crate::support::env::Env;
use crate::support::poll::until;
use rho_mock_model::script;
use serde_json::json;
use std::time::Duration;

#[test]
fn the_claude_cli_driver_answers_continues_and_says_what_it_cannot_answer() {
    let Some(c) = conv_env_with("conv-cli", 2, None, &["--agent-backend", "claude-cli"]) else {
        return;
    };
    let (conv, m) = c.converse("c1", "Say hello", json!({}));
    assert_eq!(m["stopReason"], "end_turn", "{m}");
    assert!(text(&m).contains(script::PLAIN), "{m}");
    let read = c.read(&conv);
    assert_eq!(
        read["conversation"]["backend"], "claude-cli",
        "the service default"
    );
    let session = read["conversation"]["agentSessionId"].clone();
    assert!(session.is_string(), "{read}");
    assert!(
        c.mock
            .user_agents()
            .iter()
            .any(|u| u.starts_with("claude-cli/2.1.332")),
        "the person's CLI ran: {:?}",
        c.mock.user_agents()
    );

    // The next message continues the same Claude Code session.
    let next = c.send(&conv, "c2", "[[bash: touch denied.txt]]");
    let n = c.wait_end(&conv, next["messageId"].as_str().unwrap());
    assert_eq!(c.read(&conv)["conversation"]["agentSessionId"], session);
    // Claude Code's own settings ask before a command; the CLI cannot answer, and says so.
    assert_eq!(n["error"]["code"], "permission_unanswered", "{n}");
    let said = n["error"]["message"].as_str().unwrap();
    assert!(
        said.contains("Bash") && said.contains("cannot answer"),
        "{said}"
    );
    assert!(!c.env.dir.join("denied.txt").exists());

    // Rho's own MCP tools run under the conversation's grant, asked by nobody.
    let mcp = c.send(&conv, "c3", "[[mcp: rho_index|{}]]");
    let t = c.wait_end(&conv, mcp["messageId"].as_str().unwrap());
    assert_eq!(t["stopReason"], "end_turn", "{t}");
    assert!(
        steps(&t).iter().any(|s| s["title"]
            .as_str()
            .unwrap_or_default()
            .contains("rho_index")),
        "{t}"
    );
    assert!(text(&t).contains("FINAL: tool said:"), "{t}");
    let principal = format!("agent:conversation-{}", &conv.replace('-', "")[..12]);
    let snap = c.env.wait_activity(1);
    assert!(
        snap["activity"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["principal"] == principal.as_str()),
        "{snap}"
    );

    // Stop ends the CLI's process group; the message ends cancelled.
    let slow = c.send(&conv, "c4", "[[slow]]");
    let sid = slow["messageId"].as_str().unwrap().to_string();
    c.wait(&conv, &sid, "text streams", |m| !text(m).is_empty());
    let (status, v) = c
        .env
        .local("conversation.stop", json!({"conversationId": conv}));
    assert_eq!(status, 200, "{v}");
    let stopped = c.wait_end(&conv, &sid);
    assert_eq!(stopped["stopReason"], "cancelled", "{stopped}");
    let pids = claude_processes(&c.env);
    until("no claude -p is left", Duration::from_secs(10), || {
        pids.iter().all(|p| gone(*p)) && claude_processes(&c.env).is_empty()
    });
    assert_eq!(c.mock.connect_attempts(), Vec::<String>::new());
}

/// Process ids of `claude -p` runs in this project's folder.
fn claude_processes(env: &Env) -> Vec<i32> {
    let project = env.dir.canonicalize().unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter(|pid| {
            let cmd = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let cwd = std::fs::read_link(format!("/proc/{pid}/cwd")).ok();
            String::from_utf8_lossy(&cmd).contains("stream-json")
                && cwd.as_deref() == Some(project.as_path())
                && !gone(*pid)
        })
        .collect()
}

#[test]
fn a_start_without_the_adapters_says_so_with_the_install_command() {
    let missing = tempfile::tempdir().unwrap();
    let adapters = missing.path().join("acp-adapters");
    let adapters = adapters.display().to_string();
    let env = Env::start_with_env(
        &[],
        &[("RHO_ACP_ADAPTERS", adapters.as_str())],
        None,
        "no-adapters",
    );
    let mut said = String::new();
    until(
        "the start names what is missing",
        Duration::from_secs(10),
        || {
            said = env.service.stderr_lines.lock().unwrap().join("\n");
            said.contains("claude-agent-acp")
        },
    );
    assert!(said.contains("codex-acp"), "{said}");
    let install = format!(
        "npm install --omit=optional --prefix {adapters} @agentclientprotocol/claude-agent-acp@0.101.0 @agentclientprotocol/codex-acp@2.6.0"
    );
    assert!(said.contains(&install), "one install command: {said}");
    assert!(
        !std::path::Path::new(&adapters).exists(),
        "nothing is installed"
    );
    // And conversation.start answers unavailable with the same command.
    let (status, e) = env.local(
        "conversation.start",
        json!({"changeId": "u1", "text": "Say hello"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (503, Some("unavailable")),
        "{e}"
    );
    assert_eq!(e["error"]["details"]["install"], install.as_str(), "{e}");
}
