//! The service lifecycle as a person and an operator meet it: defaults, flags, port memory, files, limits, plugins.

use crate::support;
use crate::support::{run, text, Service};
use serde_json::json;
use std::os::unix::fs::PermissionsExt;

fn flagged(root: &std::path::Path, state: &std::path::Path, extra: &[&str]) -> Vec<String> {
    let mut v = vec![
        "--root".to_string(),
        root.display().to_string(),
        "--state-dir".into(),
        state.display().to_string(),
    ];
    v.extend(extra.iter().map(|s| s.to_string()));
    v
}

fn start_with(
    root: &std::path::Path,
    state: &std::path::Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> Service {
    let args = flagged(root, state, extra);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    Service::spawn(&refs, env, root, state)
}

#[test]
fn a_default_start_makes_its_folders_and_the_example_project_once() {
    let home = tempfile::tempdir().unwrap();
    let h = home.path().to_str().unwrap();
    let root = home.path().join("Rho/projects");
    let state = home.path().join("Rho/state");
    let service = Service::spawn(
        &[],
        &[("HOME", h), ("PATH", "/usr/bin:/bin")],
        &root,
        &state,
    );
    let lines = &service.stdout_lines;
    assert!(
        lines[0].starts_with("rho ") && lines[0].contains(" pid "),
        "{lines:?}"
    );
    assert!(lines[1].starts_with("http://127.0.0.1:"), "{lines:?}");
    assert!(
        lines
            .iter()
            .any(|l| l == &format!("projects: {}", root.display())),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l == &format!("state: {}", state.display())),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("R (Rscript): ")),
        "{lines:?}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("Claude Code (claude): ")),
        "{lines:?}"
    );
    assert!(
        lines.iter().any(|l| l.starts_with("Codex (codex): ")),
        "{lines:?}"
    );
    for f in ["data.csv", "analysis.R", "README.md"] {
        assert!(root.join("example").join(f).is_file(), "{f}");
    }
    let (status, list) = service.call("project.list", json!({}));
    assert_eq!(status, 200);
    assert_eq!(list["value"]["projects"][0]["name"], "example");
    assert_eq!(service.terminate(), Some(0));
    // A restart on the same (no longer new) state ships nothing again.
    std::fs::remove_dir_all(root.join("example")).unwrap();
    let service = Service::spawn(
        &[],
        &[("HOME", h), ("PATH", "/usr/bin:/bin")],
        &root,
        &state,
    );
    assert!(!root.join("example").exists());
    assert_eq!(service.terminate(), Some(0));
}

#[test]
fn the_connection_file_is_private_and_no_credential_is_printed() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let service = start_with(root.path(), state.path(), &["--port", "0"], &[]);
    let conn = state.path().join("connection.json");
    let mode = std::fs::metadata(&conn).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600);
    let value: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&conn).unwrap()).unwrap();
    assert_eq!(value["apiVersion"], "2.0");
    assert_eq!(value["url"], format!("http://127.0.0.1:{}", service.port()));
    assert!(value["pid"].as_u64().is_some() && value["version"].is_string());
    let token = service.token();
    assert!(service
        .stdout_lines
        .iter()
        .any(|l| l.contains("connection.json")));
    // A wrong token is refused (never treated as local), and nothing prints a token.
    let (status, body) = support::http(
        service.port(),
        "POST",
        "/api/v2/project.list",
        Some("wrong"),
        &[],
        "{}",
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );
    // A failed pairing redemption and a refused call leave log lines too; none names the token.
    let _ = support::http(service.port(), "GET", "/pair/not-a-link", None, &[], "");
    let stdout = service.stdout_lines.join("\n");
    let logs = service.stderr_lines.clone();
    assert_eq!(service.terminate(), Some(0));
    let logs = logs.lock().unwrap().join("\n");
    assert!(
        logs.contains("service ready"),
        "the logs were captured: {logs}"
    );
    assert!(!stdout.contains(&token));
    assert!(!logs.contains(&token), "a credential reached the logs");
}

#[test]
fn port_memory_reuses_the_last_port_and_moves_only_when_it_is_taken() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let first = start_with(root.path(), state.path(), &[], &[]);
    let port = first.port();
    // A second start on the running state is refused with the running address.
    let out = run(&flagged(root.path(), state.path(), &[])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!("http://127.0.0.1:{port}/")),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(first.terminate(), Some(0));

    let again = start_with(root.path(), state.path(), &[], &[]);
    assert_eq!(again.port(), port, "the last port is reused");
    assert_eq!(again.terminate(), Some(0));

    // Another program takes the port: a new one is used and Agent files are rewritten.
    let agents = state.path().join("agents/p1");
    std::fs::create_dir_all(&agents).unwrap();
    let agent_file = agents.join("claude-code.json");
    std::fs::write(&agent_file, json!({"apiVersion": "2.0", "url": format!("http://127.0.0.1:{port}"), "token": "agent-token"}).to_string()).unwrap();
    let squatter = std::net::TcpListener::bind(("127.0.0.1", port)).unwrap();
    let moved = start_with(root.path(), state.path(), &[], &[]);
    assert_ne!(moved.port(), port);
    let rewritten: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&agent_file).unwrap()).unwrap();
    assert_eq!(
        rewritten["url"],
        format!("http://127.0.0.1:{}", moved.port())
    );
    assert_eq!(rewritten["token"], "agent-token", "the token is kept");
    let new_port = moved.port();
    assert_eq!(moved.terminate(), Some(0));

    // An explicit busy port is refused, naming it; --port 0 always takes a new one.
    let busy = squatter.local_addr().unwrap().port().to_string();
    let out = run(&flagged(root.path(), state.path(), &["--port", &busy])
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains(&format!("port {busy}")),
        "{}",
        text(&out.stderr)
    );
    let zero = start_with(root.path(), state.path(), &["--port", "0"], &[]);
    assert_ne!(zero.port(), new_port);
    assert_eq!(zero.terminate(), Some(0));
}

#[test]
fn explicitly_selected_runtimes_must_exist() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let args = flagged(
        root.path(),
        state.path(),
        &["--rscript", "/nonexistent/Rscript"],
    );
    let out = run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("/nonexistent/Rscript"),
        "{}",
        text(&out.stderr)
    );
    let args = flagged(root.path(), state.path(), &[]);
    let out = support::rho()
        .args(&args)
        .env("RHO_PYTHON", "/nonexistent/python")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("/nonexistent/python"));
    // An explicit runtime that exists is reported as selected.
    let fake = state.path().join("Rscript");
    std::fs::write(&fake, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let s = start_with(
        root.path(),
        &state.path().join("s"),
        &["--rscript", fake.to_str().unwrap()],
        &[],
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn plugins_and_limits_are_checked_at_start_and_shown() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let run_args = |extra: &[&str]| {
        let args = flagged(root.path(), state.path(), extra);
        run(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let out = run_args(&["--plugins", "files,bogus"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("bogus"));
    let bad = state.path().join("bad.json");
    std::fs::write(&bad, r#"{"documents": {"maxBufers": 3}}"#).unwrap();
    let out = run_args(&["--limits", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("documents.maxBufers"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(&bad, r#"{"maxQueue": "four"}"#).unwrap();
    let out = run_args(&["--limits", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("maxQueue"));

    let good = state.path().join("good.json");
    std::fs::write(&good, r#"{"maxQueue": 4, "documents": {"maxBuffers": 3}}"#).unwrap();
    let s = start_with(
        root.path(),
        state.path(),
        &[
            "--limits",
            good.to_str().unwrap(),
            "--plugins",
            "documents,tables,charts",
        ],
        &[],
    );
    let (_, snap) = s.call("observation.snapshot", json!({}));
    assert_eq!(snap["value"]["limits"]["maxQueue"], 4);
    assert_eq!(snap["value"]["limits"]["documents"]["maxBuffers"], 3);
    assert_eq!(
        snap["value"]["limits"]["documents"]["maxBufferBytes"],
        1 << 20
    );
    let (_, caps) = s.call("capability.list", json!({}));
    let owner = |name: &str| {
        caps["value"]["owners"]
            .as_array()
            .unwrap()
            .iter()
            .find(|o| o["name"] == name)
            .unwrap()
            .clone()
    };
    assert_eq!(owner("documents")["available"], true);
    assert_eq!(owner("tables")["available"], false);
    assert_eq!(owner("tables")["missing"], json!(["files"]));
    assert_eq!(owner("charts")["missing"], json!(["files"]));
    assert_eq!(owner("r")["selected"], false);
    assert_eq!(s.terminate(), Some(0));
    let none = start_with(root.path(), state.path(), &["--plugins", ""], &[]);
    let (_, caps) = none.call("capability.list", json!({}));
    assert!(caps["value"]["owners"]
        .as_array()
        .unwrap()
        .iter()
        .all(|o| o["selected"] == false));
    assert_eq!(none.terminate(), Some(0));
}

#[test]
fn pairing_links_come_from_the_cli_and_work_once() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    std::fs::create_dir(root.path().join("shared")).unwrap();
    let s = start_with(root.path(), state.path(), &[], &[]);
    let conn = state.path().join("connection.json");
    let out = run(&["--pair", conn.to_str().unwrap(), "--project", "shared"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let link = text(&out.stdout).trim().to_string();
    assert!(
        link.starts_with(&format!("http://127.0.0.1:{}/pair/", s.port())),
        "{link}"
    );
    let path = link
        .trim_start_matches(&format!("http://127.0.0.1:{}", s.port()))
        .to_string();
    let (status, head, _) = support::http_raw(s.port(), "GET", &path, None, &[], "");
    assert!(status == 302 || status == 303, "{status} {head}");
    let lower = head.to_ascii_lowercase();
    assert!(
        lower.contains("set-cookie: rho_pair=")
            && lower.contains("httponly")
            && lower.contains("samesite=strict"),
        "{head}"
    );
    let (again, _, _) = support::http_raw(s.port(), "GET", &path, None, &[], "");
    assert_eq!(again, 401, "a pairing link works once");
    let out = run(&["--pair", conn.to_str().unwrap(), "--project", "../outside"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(s.terminate(), Some(0));
    let out = run(&["--pair", conn.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1), "a stopped service");
    assert!(text(&out.stderr).contains("not running"));
    assert_eq!(run(&["--pair"]).status.code(), Some(2));
}

#[test]
fn the_status_page_points_to_the_browser_app() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = start_with(root.path(), state.path(), &[], &[]);
    let (status, head, body) = support::http_raw(s.port(), "GET", "/status", None, &[], "");
    assert_eq!(status, 200, "{head}");
    let page = String::from_utf8_lossy(&body);
    assert!(page.contains("The browser app is at"), "{page}");
    assert_eq!(s.terminate(), Some(0));
}
