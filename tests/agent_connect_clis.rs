//! `session.connect` with the real Claude Code and Codex CLIs from the npm registry (their `mcp
//! add` works offline): each writes Rho's stdio entry into its own configuration, in a private
//! HOME, and the grant it names works.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_util;
mod util;

use agent_util::Env;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn cli(name: &str) -> PathBuf {
    let peers = std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/rho-test/mcp-peers")
        });
    let path = peers.join("agent-clis/node_modules/.bin").join(name);
    assert!(
        path.exists(),
        "{} is missing: run mcp/tests/setup.sh (scripts/test does)",
        path.display()
    );
    path
}

#[test]
fn the_real_claude_code_and_codex_clis_register_the_grant() {
    let home = tempfile::tempdir().unwrap();
    let claude = cli("claude");
    let codex = cli("codex");
    let env = Env::start_with_env(
        &[
            "--claude",
            claude.to_str().unwrap(),
            "--codex",
            codex.to_str().unwrap(),
        ],
        &[("HOME", home.path().to_str().unwrap())],
        None,
        "real-clis",
    );
    let exe = Path::new(env!("CARGO_BIN_EXE_rho")).canonicalize().unwrap();
    let agents = env.service.state.join("agents").join(&env.project);

    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "claude-code"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["value"]["client"]["exitCode"], 0, "{r}");
    // Claude Code keeps a local-scope server under the project folder in ~/.claude.json.
    let claude_json: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude.json")).unwrap())
            .unwrap();
    let folder = env.dir.canonicalize().unwrap();
    let entry = &claude_json["projects"][folder.to_str().unwrap()]["mcpServers"]["rho"];
    assert_eq!(entry["command"], exe.to_str().unwrap(), "{claude_json}");
    let file = agents.join("claude-code.json");
    assert_eq!(
        entry["args"],
        json!(["--mcp", file.to_str().unwrap()]),
        "{claude_json}"
    );
    let token = env.token("claude-code");
    assert!(
        !claude_json.to_string().contains(&token),
        "no token in the client's config"
    );
    assert_eq!(env.agent_call(&token, "project.entries", json!({})).0, 200);

    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "codex"}),
    );
    assert_eq!(status, 200, "{r}");
    // Codex keeps a global server in ~/.codex/config.toml.
    let toml = std::fs::read_to_string(home.path().join(".codex/config.toml")).unwrap();
    assert!(toml.contains("[mcp_servers.rho]"), "{toml}");
    assert!(toml.contains(exe.to_str().unwrap()), "{toml}");
    assert!(
        toml.contains(agents.join("codex.json").to_str().unwrap()),
        "{toml}"
    );
    assert!(
        !toml.contains(&env.token("codex")),
        "no token in the client's config"
    );
}
