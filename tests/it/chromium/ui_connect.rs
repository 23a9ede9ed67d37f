//! "Connect your agent" from the app (issue 14): the button runs `session.connect` with the real Claude
//! Code CLI, which writes Rho's stdio entry into its own configuration (in a private HOME); the
//! grant it names works and no credential reaches the page or the client's file.

use crate::support::{browser, Env};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

fn claude() -> PathBuf {
    let peers = std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/rho-test/mcp-peers")
        });
    let path = peers.join("agent-clis/node_modules/.bin/claude");
    assert!(
        path.exists(),
        "{} is missing: run mcp/tests/setup.sh (scripts/test does)",
        path.display()
    );
    path
}

#[test]
fn connect_your_agent_in_chromium_registers_the_real_client() {
    let home = tempfile::tempdir().unwrap();
    let claude = claude();
    let env = Env::start_with_env(
        &["--claude", claude.to_str().unwrap()],
        &[("HOME", home.path().to_str().unwrap())],
        None,
        "p",
    );
    let artifacts = browser::artifacts("connect");
    let facts = browser::run_e2e("e2e-connect.mjs", &env, "unused", &artifacts, &[]);
    assert_eq!(facts["facts"]["axe_connect_1600"], 0);
    // The client's own configuration names Rho's binary and the grant's connection file, no token.
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join(".claude.json")).unwrap())
            .unwrap();
    let folder = env.dir.canonicalize().unwrap();
    let entry = &config["projects"][folder.to_str().unwrap()]["mcpServers"]["rho"];
    let exe = Path::new(env!("CARGO_BIN_EXE_rho")).canonicalize().unwrap();
    assert_eq!(entry["command"], exe.to_str().unwrap(), "{config}");
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("claude-code.json");
    assert_eq!(
        entry["args"],
        json!(["--mcp", file.to_str().unwrap()]),
        "{config}"
    );
    let token = env.token("claude-code");
    assert!(!config.to_string().contains(&token), "no token in {config}");
    // The grant the app made works for the Agent.
    assert_eq!(env.agent_call(&token, "project.entries", json!({})).0, 200);
}
