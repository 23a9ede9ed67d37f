//! Rho's own agent through the service (issue 18): Rho's memory per open `rho` conversation.
//! A release `rho` runs with `RHO_HOME` holding a config whose `[model]` is the scripted model
//! endpoint and whose `[mcp]` starts server-everything for each session; after one warm-up
//! conversation the service's resident memory is read, then N more conversations are opened
//! (each answers one plain message and stays open with its session and MCP server), and the
//! growth divided by N is printed. The MCP servers are child processes and are not counted.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin native_conversation_bench [N]`
//! (`RHO_BIN` names another `rho`; server-everything comes from `bash mcp/tests/setup.sh`,
//! `RHO_MCP_PEERS` another install). Goal: at most 20 MB per open conversation.

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, scratch};
use rho_mock_model::{script, MockModel};
use serde_json::{json, Value};
use std::path::PathBuf;
use std::time::{Duration, Instant};

fn post(c: &mut Conn, token: Option<&str>, op: &str, body: &Value) -> Value {
    let path = format!("/api/v2/{op}");
    let (status, bytes) = match c.post(&path, token, &body.to_string()) {
        Ok(r) => r,
        Err(_) => {
            *c = Conn::open(c.port()).unwrap();
            c.post(&path, token, &body.to_string()).unwrap()
        }
    };
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

/// Resident memory of `pid` in KiB (`VmRSS`).
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap()
}

/// Opens one `rho` conversation and waits until its plain answer ended.
fn converse(c: &mut Conn, pid: &str, n: usize) {
    let started = post(
        c,
        None,
        "conversation.start",
        &json!({"projectId": pid, "changeId": format!("native-{n}"), "text": format!("Say hello {n}"), "backend": "rho"}),
    );
    let conv = started["conversation"]["conversationId"].clone();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let read = post(
            c,
            None,
            "conversation.read",
            &json!({"projectId": pid, "conversationId": conv}),
        );
        let m = &read["messages"][0];
        if m["state"] != "running" {
            assert_eq!(m["stopReason"], "end_turn", "{m}");
            return;
        }
        assert!(Instant::now() < deadline, "conversation {n} did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .map(|a| a.parse().expect("N is a count"))
        .unwrap_or(8);
    let peers = std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/rho-test/mcp-peers")
        });
    let everything = peers.join("node_modules/.bin/mcp-server-everything");
    assert!(
        everything.exists(),
        "{} is missing: run bash mcp/tests/setup.sh",
        everything.display()
    );
    let dir = scratch("native-conversation-bench");
    let mock = MockModel::start(&dir).unwrap();
    let home = dir.join("rho-home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("config.toml"),
        format!(
            "[model]\nprovider = \"anthropic\"\nbase_url = \"{}\"\nmodel = \"mock-model\"\napi_key = \"none\"\n\n[mcp.servers.ev]\ntransport = \"stdio\"\ncommand = {:?}\n",
            mock.base_url(),
            everything.display().to_string()
        ),
    )
    .unwrap();
    let rho = Rho::start_with_env(
        &dir,
        &[("RHO_HOME".to_string(), home.display().to_string())],
    );
    let mut c = Conn::open(rho.port).unwrap();
    let project = post(
        &mut c,
        Some(&rho.token),
        "project.create",
        &json!({"name": "bench"}),
    );
    let pid = project["id"].as_str().unwrap().to_string();
    converse(&mut c, &pid, 0);
    std::thread::sleep(Duration::from_millis(500));
    let before = rss_kib(rho.child.id());
    for i in 1..=n {
        converse(&mut c, &pid, i);
    }
    std::thread::sleep(Duration::from_millis(500));
    let after = rss_kib(rho.child.id());
    let per = (after.saturating_sub(before)) as f64 / n as f64 / 1024.0;
    println!("machine: {}", machine_line());
    println!(
        "Rho's own agent on the scripted model ({}), one server-everything per session; {n} conversations opened after one warm-up, each answered one plain message and kept open",
        script::PLAIN
    );
    println!("| measure | value | goal |");
    println!("|---|---|---|");
    println!(
        "| rho RSS before / after | {:.1} MB / {:.1} MB | |",
        before as f64 / 1024.0,
        after as f64 / 1024.0
    );
    println!("| Rho's memory per open conversation | {per:.2} MB | <= 20 MB |");
}
