//! Benchmark driver: the native agent loop's own time per tool round trip (the model's answer
//! parsed to the tool result handed back to the connection, without the call itself) next to
//! the MCP call measured in the same run, and Rho's own memory per open session.
//!
//! `cargo run --release -p rho-mcp --example native_loop -- <server-command> <round-trips> <sessions>`
//! starts the scripted model endpoint (`rho-mock-model`) and sessions of 20 turns, each turn one
//! `echo` call on the stdio server, then the same `echo` called directly as the reference; then
//! opens `<sessions>` sessions (5 turns each) and reports the growth of this process's RSS per
//! session (the servers are child processes and not counted). Prints JSON lines.

// A benchmark example aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::time::{Duration, Instant};

use rho_mcp::agent::{AgentEvent, NativeSession, NativeSetup};
use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::model::{parse_model_config, ModelClient, Part};
use rho_mcp::runtime::StartOptions;

const TURNS_PER_SESSION: usize = 20;

async fn open(command: &str, base: &str) -> NativeSession {
    let mcp = parse_config(
        &format!("[mcp.servers.b]\ntransport = \"stdio\"\ncommand = {command:?}\n"),
        "bench".as_ref(),
    )
    .unwrap();
    let cfg = parse_model_config(
        &format!("[model]\nprovider = \"anthropic\"\nbase_url = \"{base}\"\nmodel = \"mock-model\"\napi_key = \"none\"\n"),
        "bench".as_ref(),
    )
    .unwrap();
    NativeSession::start(NativeSetup {
        model: ModelClient::new(cfg, None).unwrap(),
        mcp,
        start: StartOptions::default(),
        project: None,
        can_ask: false,
        max_steps: 8,
        system: None,
    })
    .await
}

async fn echo_turn(s: &mut NativeSession) {
    let m = s
        .prompt(vec![Part::Text(
            "[[tool: mcp__b__echo|{\"message\": \"x\"}]]".into(),
        )])
        .unwrap();
    loop {
        match s.next().await.unwrap() {
            AgentEvent::Finished { message, end } if message == m => {
                assert_eq!(end.stop, "end_turn", "{end:?}");
                return;
            }
            _ => {}
        }
    }
}

fn rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap()
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(command), Some(trips), Some(sessions)) = (
        args.next(),
        args.next().and_then(|n| n.parse::<usize>().ok()),
        args.next().and_then(|n| n.parse::<usize>().ok()),
    ) else {
        eprintln!("usage: native_loop <server-command> <round-trips> <sessions>");
        return std::process::ExitCode::from(2);
    };
    let dir = std::env::temp_dir().join(format!("rho-native-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mock = rho_mock_model::MockModel::start(&dir).unwrap();
    let base = mock.base_url();

    let mut own = Vec::new();
    let mut calls = Vec::new();
    let mut reference = Duration::ZERO;
    let mut reference_calls = 0u32;
    while own.len() < trips {
        let mut s = open(&command, &base).await;
        echo_turn(&mut s).await; // warm-up, not counted
        let skip = s.round_trips().len();
        for _ in 0..TURNS_PER_SESSION.min(trips - own.len()) {
            echo_turn(&mut s).await;
        }
        for rt in &s.round_trips()[skip..] {
            own.push(rt.own);
            calls.push(rt.calls);
        }
        // The reference in the same run: the same call made directly, as many times.
        let rt = s.runtime().unwrap().clone();
        let a = serde_json::json!({"message": "x"}).as_object().cloned();
        let t = Instant::now();
        for _ in 0..TURNS_PER_SESSION {
            rt.call("mcp__b__echo", a.clone(), CallContext::default())
                .await
                .unwrap();
        }
        reference += t.elapsed();
        reference_calls += TURNS_PER_SESSION as u32;
        drop(rt);
        s.shutdown().await;
    }
    own.sort();
    let mean = |v: &[Duration]| v.iter().sum::<Duration>() / v.len().max(1) as u32;
    let pct = |v: &[Duration], p: f64| v[((v.len() - 1) as f64 * p) as usize];
    let line = serde_json::json!({
        "bench": "native loop per tool round trip", "round_trips": own.len(),
        "loop_own_mean_us": us(mean(&own)), "loop_own_p50_us": us(pct(&own, 0.5)),
        "loop_own_p95_us": us(pct(&own, 0.95)),
        "mcp_call_in_loop_mean_us": us(mean(&calls)),
        "mcp_call_direct_mean_us": us(reference / reference_calls.max(1)),
    });
    let _ = writeln!(std::io::stdout(), "{line}");

    let before = rss_kb();
    let mut open_sessions = Vec::new();
    for _ in 0..sessions {
        let mut s = open(&command, &base).await;
        for _ in 0..5 {
            echo_turn(&mut s).await;
        }
        open_sessions.push(s);
    }
    let after = rss_kb();
    let line = serde_json::json!({
        "bench": "memory per open native session (Rho's own RSS, servers excluded)",
        "sessions": sessions, "rss_before_mb": before as f64 / 1024.0,
        "rss_after_mb": after as f64 / 1024.0,
        "per_session_mb": (after.saturating_sub(before)) as f64 / 1024.0 / sessions.max(1) as f64,
    });
    let _ = writeln!(std::io::stdout(), "{line}");
    for s in open_sessions {
        s.shutdown().await;
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::process::ExitCode::SUCCESS
}
