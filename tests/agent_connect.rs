//! `session.connect` and `--agent` (issue 7) with small scripts that record their arguments in place of the Claude Code and Codex CLIs.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_util;
mod util;

use agent_util::Env;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A fake client CLI: records its working folder and arguments, fails while `<dir>/fail` exists,
/// floods its output while `<dir>/flood` exists.
fn script(dir: &Path, name: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    let rec = dir.join(format!("{name}.args"));
    let body = format!(
        "#!/bin/sh\nif [ -e '{d}/flood' ]; then yes flood; fi\nif [ -e '{d}/fail' ]; then echo 'refused by {name}'; exit 3; fi\npwd > '{r}'\nfor a in \"$@\"; do echo \"$a\" >> '{r}'; done\necho 'added rho'\n",
        d = dir.display(),
        r = rec.display()
    );
    std::fs::write(&path, body).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

fn recorded(dir: &Path, name: &str) -> Vec<String> {
    std::fs::read_to_string(dir.join(format!("{name}.args")))
        .unwrap_or_default()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn connect_runs_the_clients_own_mcp_add_and_keeps_or_removes_the_grant() {
    let bin = tempfile::tempdir().unwrap();
    let claude = script(bin.path(), "claude");
    let codex = script(bin.path(), "codex");
    let env = Env::start(
        &[
            "--claude",
            claude.to_str().unwrap(),
            "--codex",
            codex.to_str().unwrap(),
        ],
        None,
        "conn",
    );
    let exe = Path::new(env!("CARGO_BIN_EXE_rho")).canonicalize().unwrap();
    let agents = env.service.state.join("agents").join(&env.project);
    // The person on this machine only.
    let (status, _) = env.service.call(
        "session.connect",
        json!({"projectId": env.project, "agent": "claude-code"}),
    );
    assert_eq!(status, 403);
    let (status, _) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "cursor"}),
    );
    assert_eq!(status, 400);

    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "claude-code"}),
    );
    assert_eq!(status, 200, "{r}");
    let file = agents.join("claude-code.json");
    let args = recorded(bin.path(), "claude");
    let canonical_dir = env.dir.canonicalize().unwrap();
    assert_eq!(
        args[0],
        canonical_dir.display().to_string(),
        "run in the project folder"
    );
    assert_eq!(
        args[1..],
        [
            "mcp",
            "add",
            "-s",
            "local",
            "rho",
            "--",
            exe.to_str().unwrap(),
            "--mcp",
            file.to_str().unwrap()
        ]
    );
    assert_eq!(r["value"]["client"]["output"], "added rho\n");
    assert!(!r.to_string().contains(&env.token("claude-code")));
    let token = env.token("claude-code");
    assert_eq!(env.agent_call(&token, "project.entries", json!({})).0, 200);

    // Codex with its own arguments.
    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "codex"}),
    );
    assert_eq!(status, 200, "{r}");
    let args = recorded(bin.path(), "codex");
    assert_eq!(
        args[1..],
        [
            "mcp",
            "add",
            "rho",
            "--",
            exe.to_str().unwrap(),
            "--mcp",
            agents.join("codex.json").to_str().unwrap()
        ]
    );
    let (status, _) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "codex"}),
    );
    assert_eq!(status, 200);

    // A client that refuses: a new grant is removed, an existing one kept.
    std::fs::write(bin.path().join("fail"), "").unwrap();
    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "codex"}),
    );
    assert_eq!(status, 503, "{r}");
    assert_eq!(r["error"]["details"]["client"]["exitCode"], 3);
    assert_eq!(
        r["error"]["details"]["client"]["output"],
        "refused by codex\n"
    );
    assert_eq!(r["error"]["details"]["grantKept"], false);
    assert!(!agents.join("codex.json").exists());
    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "claude-code"}),
    );
    assert_eq!(status, 503, "{r}");
    assert_eq!(r["error"]["details"]["grantKept"], true);
    assert_eq!(
        env.agent_call(&env.token("claude-code"), "project.entries", json!({}))
            .0,
        200
    );
    std::fs::remove_file(bin.path().join("fail")).unwrap();

    // Output beyond 8 KiB: stopped with what it printed.
    std::fs::write(bin.path().join("flood"), "").unwrap();
    let started = Instant::now();
    let (status, r) = env.service.call_local(
        "session.connect",
        json!({"projectId": env.project, "agent": "codex"}),
    );
    assert_eq!(status, 503, "{r}");
    assert!(started.elapsed() < Duration::from_secs(10));
    let client = &r["error"]["details"]["client"];
    assert_eq!(client["truncated"], true);
    let out = client["output"].as_str().unwrap();
    assert!(
        out.len() <= 8192 && out.starts_with("flood\n"),
        "{}",
        out.len()
    );
    let snap = env.snapshot();
    let sessions: Vec<&str> = snap["agents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["session"].as_str().unwrap())
        .collect();
    assert_eq!(sessions, ["claude-code"]);
}

#[test]
fn the_agent_start_option_connects_a_project_folder() {
    let bin = tempfile::tempdir().unwrap();
    let claude = script(bin.path(), "claude");
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = util::Service::start(root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "startup"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    assert_eq!(s.terminate(), Some(0));
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
        "--agent",
        "claude-code",
        "--project",
        "startup",
    ];
    let _s = util::Service::spawn(
        &args,
        &[("RHO_CLAUDE", claude.to_str().unwrap())],
        root.path(),
        state.path(),
    );
    let deadline = Instant::now() + Duration::from_secs(10);
    while recorded(bin.path(), "claude").is_empty() {
        assert!(
            Instant::now() < deadline,
            "--agent did not run claude mcp add"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let file = state
        .path()
        .join("agents")
        .join(&pid)
        .join("claude-code.json");
    assert_eq!(
        recorded(bin.path(), "claude").last().unwrap(),
        file.to_str().unwrap()
    );
    assert!(file.exists());
    // --agent needs --project; unknown agents are usage errors.
    assert_eq!(
        util::run(&["--agent", "claude-code"]).status.code(),
        Some(2)
    );
    assert_eq!(
        util::run(&["--agent", "cursor", "--project", "x"])
            .status
            .code(),
        Some(2)
    );
}
