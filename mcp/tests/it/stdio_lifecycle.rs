//! stdio servers against real peers: handshake, discovery, isolation, budgets, shutdown.

use std::process::ExitCode;
use std::time::{Duration, Instant};

use rho_mcp::config::parse_config;
use rho_mcp::connect::ConnectOptions;
use rho_mcp::runtime::{McpRuntime, Slot, StartOptions};

use crate::peers::{alive, everything, filesystem, fixture, q, read_pid};
use crate::util::{run_cli, write_config};

fn fast_opts(budget: Duration) -> StartOptions {
    StartOptions {
        connect: ConnectOptions {
            startup_budget: budget,
            shutdown_grace: Duration::from_millis(500),
            workspace: Some(std::env::temp_dir()),
            ..ConnectOptions::default()
        },
        ..StartOptions::default()
    }
}

#[test]
fn list_connect_reports_live_servers_and_isolates_failures() {
    let dir = tempfile::tempdir().unwrap();
    let text = format!(
        r#"
[mcp.servers.everything]
transport = "stdio"
command = {ev}
[mcp.servers.fs]
transport = "stdio"
command = {fs}
args = [{dir}]
[mcp.servers.fs.tools]
allow = ["read_text_file", "list_directory"]
deny = ["list_directory"]
[mcp.servers.missing]
transport = "stdio"
command = "rho-no-such-command-anywhere"
[mcp.servers.crash]
transport = "stdio"
command = {crash}
[mcp.servers.off]
transport = "stdio"
command = {ev}
enabled = false
"#,
        ev = q(&everything()),
        fs = q(&filesystem()),
        dir = q(dir.path()),
        crash = q(&fixture("crash.sh")),
    );
    let (_d, path) = write_config(&text);
    let run = run_cli(&path, &["list", "--connect", "--json"]);
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let s = |id: &str| {
        v["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id)
            .unwrap()
            .clone()
    };
    let ev = s("everything");
    assert_eq!(ev["status"], "connected");
    assert_eq!(ev["era"], "2025-11-25");
    let echo = ev["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "echo")
        .unwrap()
        .clone();
    assert_eq!(echo["exported"], "mcp__everything__echo");
    assert_eq!(echo["title"], "Echo Tool");
    assert!(ev["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["command"] == "/mcp:everything:simple-prompt"));
    assert!(ev["resources"]
        .as_array()
        .unwrap()
        .iter()
        .any(|r| r["template"] == true));

    let fs = s("fs");
    assert_eq!(fs["status"], "connected");
    let exported: Vec<&str> = fs["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["exported"].as_str())
        .collect();
    assert_eq!(
        exported,
        ["mcp__fs__read_text_file"],
        "allow/deny with deny winning"
    );

    assert_eq!(s("missing")["status"], "failed");
    assert!(s("missing")["error"]
        .as_str()
        .unwrap()
        .contains("cannot start"));
    let crash = s("crash");
    assert_eq!(crash["status"], "failed");
    assert!(
        crash["error"]
            .as_str()
            .unwrap()
            .contains("fatal: cannot open database"),
        "{crash}"
    );
    assert_eq!(s("off")["status"], "disabled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hanging_server_hits_startup_budget_and_its_group_is_killed() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let text = format!(
        "[mcp.servers.hang]\ntransport = \"stdio\"\ncommand = {}\nenv = {{ RHO_TEST_PIDFILE = {} }}\n",
        q(&fixture("hang.sh")),
        q(&pidfile)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let started = Instant::now();
    let rt = McpRuntime::start(&cfg, fast_opts(Duration::from_secs(1)))
        .await
        .unwrap();
    let Slot::Failed { error, .. } = &rt.slots()[0] else {
        panic!("hang should fail")
    };
    assert!(error.contains("within 1s"), "{error}");
    assert!(started.elapsed() < Duration::from_secs(5));
    let pid = read_pid(&pidfile);
    assert!(!alive(pid), "the hung server's process group was stopped");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_the_whole_process_group() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let text = format!(
        "[mcp.servers.wrapped]\ntransport = \"stdio\"\ncommand = {}\nargs = [{}]\nenv = {{ RHO_TEST_PIDFILE = {} }}\n",
        q(&fixture("wrap-with-orphan.sh")),
        q(&everything()),
        q(&pidfile)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, fast_opts(Duration::from_secs(60)))
        .await
        .unwrap();
    let Slot::Live(live) = &rt.slots()[0] else {
        panic!("wrapped server should start: {:?}", rt.slots()[0])
    };
    let pgid = live.pgid().await.expect("pgid");
    let grandchild = read_pid(&pidfile);
    assert!(alive(grandchild));
    assert!(alive(pgid));
    rt.shutdown().await;
    assert!(!alive(grandchild), "no orphan left behind");
    assert!(!alive(pgid));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn zero_enabled_servers_start_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("started");
    let text = format!(
        "[mcp.servers.off]\ntransport = \"stdio\"\ncommand = {}\nenabled = false\nenv = {{ RHO_TEST_MARKER = {} }}\n[mcp.servers.bad]\ntransport = \"sse\"\nurl = \"http://127.0.0.1:1\"\n",
        q(&fixture("marker.sh")),
        q(&marker)
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    assert!(McpRuntime::start(&cfg, StartOptions::default())
        .await
        .is_none());
    let (_d, path) = write_config(&text);
    let run = run_cli(&path, &["list", "--connect"]);
    assert_eq!(run.code, ExitCode::SUCCESS);
    assert!(
        !run.stderr.contains("rho::mcp"),
        "no MCP work logged: {}",
        run.stderr
    );
    std::thread::sleep(Duration::from_millis(200));
    assert!(!marker.exists(), "no process was started");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_dies_mid_session_fails_its_tools_and_is_not_restarted() {
    let text = format!(
        "[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {}\n",
        q(&everything())
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, fast_opts(Duration::from_secs(60)))
        .await
        .unwrap();
    let Slot::Live(live) = &rt.slots()[0] else {
        panic!()
    };
    let pgid = live.pgid().await.unwrap();
    nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let mut failed = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Some(f) = live.snapshot().failed {
            failed = Some(f);
            break;
        }
    }
    assert!(failed.unwrap_or_default().contains("session ended"));
    let r = rt
        .call(
            "mcp__ev__echo",
            serde_json::json!({"message": "x"}).as_object().cloned(),
            rho_mcp::call::CallContext::default(),
        )
        .await;
    assert!(
        matches!(r, Err(rho_mcp::call::CallError::Unavailable { .. })),
        "{r:?}"
    );
    let report = rho_mcp::report::live_report(&cfg.entries[0], &rt.slots()[0], rt.registry());
    assert_eq!(report.status, rho_mcp::report::Status::Failed);
    rt.shutdown().await;
}
