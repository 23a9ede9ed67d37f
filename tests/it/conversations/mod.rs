//! Conversations against the real service: a real Claude Code (claude-agent-acp) or Codex
//! (codex-acp) session given the project's Rho MCP tools through a grant of its own, the call
//! recorded in the project's activity. Real CLIs on the scripted model endpoint; run serially
//! (`scripts/test`).

mod cli;
mod context;
mod decide;
mod edits;
mod limits;
mod native;
mod native_idle;
mod native_palette;
mod native_questions;
mod native_stop;
mod native_tools;
mod resume;
mod service;

use crate::support::agents::runtimes_or_skip;
use crate::support::env::Env;
use crate::support::mcp::grant_file;
use rho_actors::agent::conversation::{AgentSession, Backend, RecordLimits, Runtimes, TurnEvent};
use rho_mock_model::isolation::{cli_env, Cli};
use rho_mock_model::MockModel;
use serde_json::json;
use std::time::Duration;

/// Starts a session of `backend` with the grant of `session` as its `rho` MCP server, has the
/// model call `rho_index` (permissions allowed once) and checks the reply and the activity.
fn calls_rho_index(test: &str, backend: Backend, session: &str) {
    let Some(runtimes) = runtimes_or_skip(test, backend) else {
        return;
    };
    let env = Env::start(&[], None, test);
    let (_, granted) = grant_file(&env, session);
    let server = json!({"name": "rho", "command": granted["mcp"]["command"], "args": granted["mcp"]["args"], "env": []});
    let mock = MockModel::start(env.work.path()).unwrap();
    let cli = match backend {
        Backend::ClaudeAgentAcp | Backend::ClaudeCli => Cli::Claude,
        Backend::CodexAcp => Cli::Codex,
        Backend::Rho => panic!("Rho's own agent has no CLI"),
    };
    let vars = cli_env(cli, &mock, env.work.path(), &runtimes.node, 2).unwrap();
    let runtimes = Runtimes {
        env: vars,
        ..runtimes
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (end, message, asked) = rt.block_on(async {
        let mut s = AgentSession::start(
            &runtimes,
            backend,
            &env.dir,
            vec![server],
            None,
            RecordLimits::default(),
        )
        .await
        .unwrap();
        if backend == Backend::ClaudeAgentAcp {
            // Auto mode's safety check needs a real classifier: the default mode asks instead.
            s.set_mode("default").await.unwrap();
        }
        s.prompt("[[mcp: rho_index|{}]]");
        let mut asked = 0;
        let end = loop {
            match tokio::time::timeout(Duration::from_secs(90), s.next())
                .await
                .unwrap()
            {
                TurnEvent::Changed => {}
                TurnEvent::Permission(p) => {
                    asked += 1;
                    let id = p.option("allow_once").unwrap().to_string();
                    assert!(s.answer(&p, &id));
                }
                other => break other,
            }
        };
        (end, s.message.clone(), asked)
    });
    assert!(
        matches!(end, TurnEvent::Finished(ref r) if r == "end_turn"),
        "{end:?}"
    );
    assert!(asked <= 1, "{asked}");
    let step = message.steps.first().expect("the MCP call is a step");
    assert!(step.title.contains("rho_index"), "{step:?}");
    assert!(
        message.text.contains("FINAL: tool said:"),
        "{:?}",
        message.text
    );
    assert!(
        message.text.contains(session),
        "the index page names the grant's session: {:?}",
        message.text
    );
    let snap = env.wait_activity(1);
    let activity = snap["activity"].as_array().unwrap();
    let principal = format!("agent:{session}");
    assert!(
        activity
            .iter()
            .any(|a| a["principal"] == principal.as_str() && a["method"] == "capability.index"),
        "{activity:?}"
    );
    assert_eq!(mock.connect_attempts(), Vec::<String>::new());
}

#[test]
fn claude_calls_rhos_mcp_tools_through_the_conversations_grant() {
    calls_rho_index("conv-mcp-claude", Backend::ClaudeAgentAcp, "conversation-1");
}

#[test]
fn codex_calls_rhos_mcp_tools_through_the_conversations_grant() {
    calls_rho_index("conv-mcp-codex", Backend::CodexAcp, "conversation-2");
}
