//! Benchmark driver: the per-call cost of a trivial tool call through Rho's MCP client.
//!
//! `cargo run --release -p rho-mcp --example call_overhead -- <server-command> <calls>` starts
//! the stdio server, calls `echo` `<calls>` times and prints one JSON line with the mean.

// A benchmark example aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::{Duration, Instant};

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, StartOptions};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> std::process::ExitCode {
    let mut args = std::env::args().skip(1);
    let (Some(command), Some(calls)) =
        (args.next(), args.next().and_then(|n| n.parse::<u32>().ok()))
    else {
        eprintln!("usage: call_overhead <server-command> <calls>");
        return std::process::ExitCode::from(2);
    };
    let text = format!("[mcp.servers.b]\ntransport = \"stdio\"\ncommand = {command:?}\n");
    let Ok(cfg) = parse_config(&text, "bench".as_ref()) else {
        return std::process::ExitCode::from(2);
    };
    let started = Instant::now();
    let Some(rt) = McpRuntime::start(&cfg, StartOptions::default()).await else {
        return std::process::ExitCode::from(1);
    };
    let startup = started.elapsed();
    let args = serde_json::json!({"message": "x"}).as_object().cloned();
    // Warm up once.
    if let Err(e) = rt
        .call("mcp__b__echo", args.clone(), CallContext::default())
        .await
    {
        eprintln!("call failed: {e}");
        return std::process::ExitCode::from(1);
    }
    let t = Instant::now();
    for _ in 0..calls {
        if let Err(e) = rt
            .call("mcp__b__echo", args.clone(), CallContext::default())
            .await
        {
            eprintln!("call failed: {e}");
            return std::process::ExitCode::from(1);
        }
    }
    let per_call = t.elapsed() / calls.max(1);
    rt.shutdown().await;
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    let line = serde_json::json!({
        "client": "rho", "calls": calls,
        "startup_ms": startup.as_secs_f64() * 1e3, "per_call_us": us(per_call)
    });
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{line}");
    std::process::ExitCode::SUCCESS
}
