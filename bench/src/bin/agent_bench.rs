//! Agent access benchmark: `project.entries` called with an Agent grant (recorded as activity) next to the same call by the operator, plus `capability.index` / `capability.resolve`.
//!
//! Usage: `cargo build --release -p rho -p rho-bench && target/release/agent_bench [--quick]`.
//! The reference is the operator's identical `project.entries` in the same run, interleaved:
//! the difference is the grant lookup and the activity record (appended off the reply path).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, quantile_us, scratch, time_loop};
use std::time::Duration;

const ROUNDS: usize = 3;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn timed(c: &mut Conn, path: &str, token: &str, body: &str, budget: Duration) -> Vec<Duration> {
    time_loop(budget, 50, || {
        let (status, reply) = c.post(path, Some(token), body).unwrap();
        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&reply));
    })
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 300 } else { 1500 });
    let dir = scratch("agent-bench");
    let rho = Rho::start(&dir);
    let mut c = Conn::open(rho.port).unwrap();
    let (_, p) = c
        .post(
            "/api/v2/project.create",
            Some(&rho.token),
            r#"{"name":"bench"}"#,
        )
        .unwrap();
    let p: serde_json::Value = serde_json::from_slice(&p).unwrap();
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    for i in 0..50 {
        std::fs::write(
            std::path::Path::new(p["value"]["path"].as_str().unwrap()).join(format!("f{i}.csv")),
            "a,b\n1,2\n",
        )
        .unwrap();
    }
    let (status, g) = c
        .post(
            "/api/v2/session.grant",
            Some(&rho.token),
            &format!(r#"{{"projectId":"{pid}","session":"bench"}}"#),
        )
        .unwrap();
    assert_eq!(status, 200, "{}", String::from_utf8_lossy(&g));
    let g: serde_json::Value = serde_json::from_slice(&g).unwrap();
    let file: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(g["value"]["connectionFile"].as_str().unwrap()).unwrap(),
    )
    .unwrap();
    let agent = file["token"].as_str().unwrap().to_string();
    let entries = format!(r#"{{"projectId":"{pid}"}}"#);
    let index = format!(r#"{{"projectId":"{pid}","owner":"documents"}}"#);
    let resolve = format!(
        r#"{{"projectId":"{pid}","operations":["document.open","document.edit","document.save"]}}"#
    );
    println!("machine: {}\n", machine_line());
    println!("Interleaved: {ROUNDS} rounds, {} ms per cell, 1 keep-alive client; medians over rounds. Reference: the operator's identical project.entries (50 entries).\n", budget.as_millis());
    println!("| call | p50 | p99 | p50 vs operator |\n|---|---|---|---|");
    let mut rows: Vec<[f64; 8]> = Vec::new();
    for _ in 0..ROUNDS {
        let op = timed(
            &mut c,
            "/api/v2/project.entries",
            &rho.token,
            &entries,
            budget,
        );
        let ag = timed(&mut c, "/api/v2/project.entries", &agent, &entries, budget);
        let ix = timed(&mut c, "/api/v2/capability.index", &agent, &index, budget);
        let rs = timed(
            &mut c,
            "/api/v2/capability.resolve",
            &agent,
            &resolve,
            budget,
        );
        rows.push([
            quantile_us(&op, 0.5),
            quantile_us(&op, 0.99),
            quantile_us(&ag, 0.5),
            quantile_us(&ag, 0.99),
            quantile_us(&ix, 0.5),
            quantile_us(&ix, 0.99),
            quantile_us(&rs, 0.5),
            quantile_us(&rs, 0.99),
        ]);
    }
    let col = |i: usize| median(rows.iter().map(|r| r[i]).collect());
    let ratio = |i: usize| median(rows.iter().map(|r| r[i] / r[0]).collect());
    for (name, i) in [
        ("project.entries (operator)", 0),
        ("project.entries (Agent, recorded)", 2),
        ("capability.index owner=documents (Agent)", 4),
        ("capability.resolve 3 operations (Agent)", 6),
    ] {
        println!(
            "| {name} | {:.0} µs | {:.0} µs | {:.2}x |",
            col(i),
            col(i + 1),
            ratio(i)
        );
    }
    drop(c);
    drop(rho);
    let _ = std::fs::remove_dir_all(&dir);
}
