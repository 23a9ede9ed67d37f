//! Agent grants (issue 7): `rho --grant` output and exit codes, idempotent repeats, changed scope, revocation, limits, instructions, and a port change.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_util;
mod util;

use agent_util::{mode, Env};
use serde_json::{json, Value};
use util::{http, Service};

#[test]
fn grant_cli_prints_the_mcp_entry_and_never_a_token() {
    let env = Env::start(&[], None, "p1");
    let (code, stdout, stderr) = env.grant_cli(&["--project-id", &env.project]);
    assert_eq!(code, 0, "{stderr}");
    let v: Value = serde_json::from_str(stdout.trim()).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "claude",
            "expiresAt",
            "mcp",
            "methods",
            "projectId",
            "session"
        ]
    );
    assert_eq!(v["session"], "claude-code");
    assert_eq!(v["projectId"], env.project.as_str());
    let methods: Vec<&str> = v["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(methods.contains(&"project.entries") && methods.contains(&"document.edit"));
    assert!(!methods
        .iter()
        .any(|m| m.starts_with("project.") && *m != "project.entries"));
    assert!(!methods.iter().any(|m| m.starts_with("session.")));
    let exe = std::path::Path::new(env!("CARGO_BIN_EXE_rho"))
        .canonicalize()
        .unwrap();
    assert_eq!(v["mcp"]["name"], "rho");
    assert_eq!(v["mcp"]["command"], exe.display().to_string());
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("claude-code.json");
    assert_eq!(
        v["mcp"]["args"],
        json!(["--mcp", file.display().to_string()])
    );
    assert_eq!(
        v["claude"],
        format!(
            "claude mcp add -s local rho -- {} --mcp {}",
            exe.display(),
            file.display()
        )
    );
    // The private connection file.
    assert_eq!(mode(&file), 0o600);
    let conn: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let keys: Vec<&str> = conn
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "apiVersion",
            "expiresAt",
            "profile",
            "projectId",
            "session",
            "token",
            "url"
        ]
    );
    assert_eq!(conn["apiVersion"], "2.0");
    assert_eq!(conn["profile"], "layered-business");
    let token = conn["token"].as_str().unwrap();
    assert!(!stdout.contains(token) && !stderr.contains(token));
    // About 30 days.
    let exp = chrono::DateTime::parse_from_rfc3339(v["expiresAt"].as_str().unwrap()).unwrap();
    let days = (exp.with_timezone(&chrono::Utc) - chrono::Utc::now()).num_hours() / 24;
    assert!((29..=30).contains(&days), "{days}");
    // The token reaches the project.
    let (status, r) = env.agent_call(token, "project.entries", json!({}));
    assert_eq!(status, 200, "{r}");
    // The service's logs never carry it.
    let logs = env.service.stderr_lines.lock().unwrap().join("\n");
    assert!(!logs.contains(token));
}

#[test]
fn repeats_keep_the_credential_changes_mint_a_new_one_and_revoke_ends_it() {
    let env = Env::start(&[], None, "p2");
    let (code, first, _) = env.grant_cli(&["--project-id", &env.project, "--session", "a1"]);
    assert_eq!(code, 0);
    let t1 = env.token("a1");
    // Same grant, by folder this time: same credential.
    let (code, again, err) = env.grant_cli(&["--project", "p2", "--session", "a1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(env.token("a1"), t1);
    let a: Value = serde_json::from_str(first.trim()).unwrap();
    let b: Value = serde_json::from_str(again.trim()).unwrap();
    assert_eq!(a, b);
    // A lost connection file is repaired by repeating the grant (a fresh token; the old one ends).
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("a1.json");
    std::fs::remove_file(&file).unwrap();
    let (code, _, _) = env.grant_cli(&["--project-id", &env.project, "--session", "a1"]);
    assert_eq!(code, 0);
    let t1b = env.token("a1");
    assert_ne!(t1b, t1);
    assert_eq!(env.agent_call(&t1, "project.entries", json!({})).0, 401);
    let t1 = t1b;
    // A changed scope mints a fresh token and the old one is refused at once.
    let g = env.grant("a1", Some(&["project.entries", "document.open"]));
    assert_eq!(g["reused"], false);
    let t2 = env.token("a1");
    assert_ne!(t1, t2);
    let (status, r) = env.agent_call(&t1, "project.entries", json!({}));
    assert_eq!(status, 401, "{r}");
    assert_eq!(env.agent_call(&t2, "project.entries", json!({})).0, 200);
    // A changed expiry too.
    let (code, _, _) = env.grant_cli(&[
        "--project-id",
        &env.project,
        "--session",
        "a1",
        "--expires",
        "7d",
    ]);
    assert_eq!(code, 0);
    let t3 = env.token("a1");
    assert_ne!(t2, t3);
    assert_eq!(env.agent_call(&t2, "project.entries", json!({})).0, 401);
    // The CLI grants the default methods; beyond them: forbidden.
    let (status, r) = env.agent_call(&t3, "project.list", json!({}));
    assert_eq!(status, 403, "{r}");
    // An Agent cannot grant.
    let (status, _) = env.agent_call(&t3, "session.grant", json!({"session": "x"}));
    assert_eq!(status, 403);
    // Revoke.
    let (status, r) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "a1"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(env.agent_call(&t3, "project.entries", json!({})).0, 401);
    assert!(!env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("a1.json")
        .exists());
    let (status, _) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "a1"}),
    );
    assert_eq!(status, 404);
}

#[test]
fn grant_refusals_name_the_problem() {
    let env = Env::start(
        &[],
        Some(json!({"layeredGrantLimits": {"maxMethods": 5}})),
        "p3",
    );
    let call = |body: Value| env.service.call("session.grant", body);
    // The default grant has more than 5 methods: refused, never cut.
    let (status, r) = call(json!({"projectId": env.project, "session": "s"}));
    assert_eq!(status, 429, "{r}");
    assert_eq!(
        r["error"]["details"]["limit"],
        "layeredGrantLimits.maxMethods"
    );
    // Unknown and never-grantable methods are named.
    let (status, r) = call(json!({"projectId": env.project, "session": "s",
        "methods": ["project.entries", "no.such", "session.grant", "project.create"]}));
    assert_eq!(status, 400, "{r}");
    assert_eq!(
        r["error"]["details"]["methods"],
        json!(["no.such", "session.grant", "project.create"])
    );
    let (status, _) =
        call(json!({"projectId": env.project, "session": "../x", "methods": ["project.entries"]}));
    assert_eq!(status, 400);
    let (status, _) = call(
        json!({"projectId": uuid::Uuid::new_v4().to_string(), "session": "s", "methods": ["project.entries"]}),
    );
    assert_eq!(status, 404);
    let (status, _) = call(
        json!({"projectId": env.project, "session": "s", "methods": ["project.entries"], "expiresAt": "2001-01-01T00:00:00Z"}),
    );
    assert_eq!(status, 400);
    let (status, _) = call(
        json!({"projectId": env.project, "session": "s", "methods": ["project.entries"], "profile": "layered-presentation"}),
    );
    assert_eq!(status, 503);
    // Instructions: the launcher and project, no credential.
    let (status, r) = env
        .service
        .call("session.instructions", json!({"projectId": env.project}));
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["value"]["mcp"]["args"][0], "--mcp");
    assert_eq!(r["value"]["granted"], false);
    assert!(r["value"].get("token").is_none());
}

#[test]
fn grant_cli_exit_codes() {
    let env = Env::start(&[], None, "p4");
    // Usage: neither or both project forms, unknown option, bad duration.
    for args in [
        vec![],
        vec!["--project-id", env.project.as_str(), "--project", "p4"],
        vec!["--project-id", env.project.as_str(), "--expires", "soon"],
    ] {
        let (code, stdout, stderr) = env.grant_cli(&args);
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty() && stderr.contains("usage"), "{stderr}");
    }
    let (code, _, _) = env.grant_cli(&["--project-id", &env.project, "--bogus"]);
    assert_eq!(code, 2);
    // Unknown project, bad connection file: 1.
    let (code, stdout, _) = env.grant_cli(&["--project-id", &uuid::Uuid::new_v4().to_string()]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    let (code, _, _) = env.grant_cli(&["--project", "nope"]);
    assert_eq!(code, 1);
    let bad = env.service.state.join("bad.json");
    std::fs::write(&bad, "not json").unwrap();
    let out = util::rho()
        .args([
            "--grant",
            bad.to_str().unwrap(),
            "--project-id",
            &env.project,
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // A stopped service: 1.
    let conn = env.connection();
    let project = env.project.clone();
    let Env { service, .. } = env;
    assert_eq!(service.terminate(), Some(0));
    let out = util::rho()
        .args(["--grant", conn.to_str().unwrap(), "--project-id", &project])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("not running"));
}

#[test]
fn a_port_change_rewrites_the_agent_file_and_the_token_still_works() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "moved"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    let (status, g) = s.call(
        "session.grant",
        json!({"projectId": pid, "session": "mover", "methods": ["project.entries"]}),
    );
    assert_eq!(status, 200, "{g}");
    let file = state.path().join("agents").join(&pid).join("mover.json");
    let before: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    let old_port = s.port();
    assert_eq!(s.terminate(), Some(0));
    // Another program takes the old port; the next start moves and rewrites the file.
    let _squatter = std::net::TcpListener::bind(("127.0.0.1", old_port)).unwrap();
    let s = Service::start(root.path(), state.path());
    assert_ne!(s.port(), old_port);
    let after: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(after["url"], format!("http://127.0.0.1:{}", s.port()));
    assert_eq!(after["token"], before["token"]);
    assert_eq!(mode(&file), 0o600);
    let token = after["token"].as_str().unwrap();
    let (status, r) = http(
        s.port(),
        "POST",
        "/api/v2/project.entries",
        Some(token),
        &[],
        &json!({"projectId": pid}).to_string(),
    );
    assert_eq!(status, 200, "{r}");
}
