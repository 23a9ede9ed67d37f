//! HTTP benchmark: `observation.snapshot` latency and throughput next to an empty request through the same middleware.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin http_bench`.
//! The reference is `POST /api/v2/no.such` from the local browser: the same access checks, peer
//! lookup, envelope and operation lookup, answered without reaching an actor.

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, quantile_us, scratch};
use std::time::{Duration, Instant};

const ROUNDS: usize = 3;

/// `clients` connections hammering `path` for `budget`; returns (latencies, requests/s).
fn load(
    port: u16,
    clients: usize,
    path: &str,
    body: &str,
    budget: Duration,
) -> (Vec<Duration>, f64) {
    let started = Instant::now();
    let all: Vec<Vec<Duration>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..clients)
            .map(|_| {
                s.spawn(move || {
                    let mut c = Conn::open(port).unwrap();
                    let mut lat = Vec::new();
                    while started.elapsed() < budget {
                        let t = Instant::now();
                        let (status, _) = c.post(path, None, body).unwrap();
                        assert!(status == 200 || status == 404, "status {status}");
                        lat.push(t.elapsed());
                    }
                    lat
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let lat: Vec<Duration> = all.into_iter().flatten().collect();
    let rate = lat.len() as f64 / started.elapsed().as_secs_f64();
    (lat, rate)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 300 } else { 1500 });
    let dir = scratch("http-bench");
    let rho = Rho::start(&dir);
    let mut c = Conn::open(rho.port).unwrap();
    for i in 0..3 {
        c.post(
            "/api/v2/project.create",
            Some(&rho.token),
            &format!("{{\"name\":\"warm{i}\"}}"),
        )
        .unwrap();
    }
    println!("machine: {}\n", machine_line());
    println!("Interleaved: {ROUNDS} rounds, {} ms per cell; medians over rounds. Reference: an empty request (unknown operation, 404 envelope) through the same middleware.\n", budget.as_millis());
    println!(
        "| clients | route | p50 | p99 | requests/s | p50 vs empty |\n|---|---|---|---|---|---|"
    );
    for clients in [1, 16] {
        let mut rows: Vec<[f64; 6]> = Vec::new();
        for _ in 0..ROUNDS {
            let (el, er) = load(rho.port, clients, "/api/v2/no.such", "", budget);
            let (sl, sr) = load(
                rho.port,
                clients,
                "/api/v2/observation.snapshot",
                "",
                budget,
            );
            rows.push([
                quantile_us(&el, 0.5),
                quantile_us(&el, 0.99),
                er,
                quantile_us(&sl, 0.5),
                quantile_us(&sl, 0.99),
                sr,
            ]);
        }
        let col = |i: usize| median(rows.iter().map(|r| r[i]).collect());
        let ratio = median(rows.iter().map(|r| r[3] / r[0]).collect());
        println!(
            "| {clients} | empty | {:.0} µs | {:.0} µs | {:.0} | 1.00x |",
            col(0),
            col(1),
            col(2)
        );
        println!(
            "| {clients} | observation.snapshot | {:.0} µs | {:.0} µs | {:.0} | {ratio:.2}x |",
            col(3),
            col(4),
            col(5)
        );
    }
    // project.create on its own: a folder, a journal (fsyncs), the created event, the registry flush.
    let mut c = Conn::open(rho.port).unwrap();
    let mut lat = Vec::new();
    for i in 0..(if quick { 10 } else { 40 }) {
        let t = Instant::now();
        let (status, _) = c
            .post(
                "/api/v2/project.create",
                Some(&rho.token),
                &format!("{{\"name\":\"p{i}\"}}"),
            )
            .unwrap();
        assert_eq!(status, 200);
        lat.push(t.elapsed());
    }
    // The same disk's sync latency, right after: project.create is about ten syncs (folder,
    // segment, watermark, directories, the two records, the registry flush).
    let sync = {
        use std::io::Write;
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(dir.join("sync-probe"))
            .unwrap();
        rho_bench::time_loop(Duration::from_millis(300), 30, || {
            f.write_all(&[0u8; 64]).unwrap();
            f.sync_data().unwrap();
        })
    };
    println!(
        "\n| operation | n | p50 | p99 | write+fdatasync p50 (same run) |\n|---|---|---|---|---|"
    );
    println!(
        "| project.create | {} | {:.1} ms | {:.1} ms | {:.2} ms |",
        lat.len(),
        quantile_us(&lat, 0.5) / 1000.0,
        quantile_us(&lat, 0.99) / 1000.0,
        quantile_us(&sync, 0.5) / 1000.0
    );
    drop(c);
    drop(rho);
    let _ = std::fs::remove_dir_all(&dir);
}
