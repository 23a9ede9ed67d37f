//! Managed `r.execute` benchmark: a trivial script from submit to observed finish next to a bare
//! `Rscript -e 1` in the same run, and 20 trivial runs driven with 2 in flight (a third refused).
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin r_bench`
//! (`RHO_BIN` names another `rho`; needs Rscript on PATH).

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, scratch};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

const SAMPLES: usize = 20;
const SCRIPT: &str = "x <- 1\n";

fn post(c: &mut Conn, token: &str, op: &str, body: &Value) -> (u16, Value) {
    let (status, bytes) = c
        .post(&format!("/api/v2/{op}"), Some(token), &body.to_string())
        .unwrap();
    (status, serde_json::from_slice(&bytes).unwrap())
}

fn sha256_hex(bytes: &[u8]) -> String {
    let out = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .and_then(|mut ch| {
            use std::io::Write;
            ch.stdin.take().unwrap().write_all(bytes)?;
            ch.wait_with_output()
        })
        .unwrap();
    String::from_utf8_lossy(&out.stdout)[..64].to_string()
}

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

struct Bench {
    c: Conn,
    token: String,
    pid: String,
    digest: String,
}

impl Bench {
    fn submit(&mut self, op: &str) -> (u16, Value) {
        let body = json!({"projectId": self.pid, "operationId": op, "action": "r.execute", "actionVersion": "0.2.0",
            "input": {"script": {"kind": "disk", "path": "t.R", "digest": self.digest},
                      "args": [], "requirements": [], "artifacts": [], "completion": null}});
        let (status, v) = post(&mut self.c, &self.token, "action.submit", &body);
        (status, v)
    }

    fn ended(&mut self, op: &str) -> bool {
        let (status, v) = post(
            &mut self.c,
            &self.token,
            "action.lookup",
            &json!({"projectId": self.pid, "operationId": op}),
        );
        assert_eq!(status, 200, "{v}");
        assert_ne!(v["value"]["execution"], "unknown", "{v}");
        v["value"]["execution"] == "exited"
    }

    fn wait(&mut self, op: &str) {
        while !self.ended(op) {
            std::thread::sleep(Duration::from_micros(500));
        }
    }
}

fn main() {
    let dir = scratch("r-bench");
    let rho = Rho::start(&dir);
    let mut c = Conn::open(rho.port).unwrap();
    let (_, project) = post(
        &mut c,
        &rho.token,
        "project.create",
        &json!({"name": "rbench"}),
    );
    let project = project["value"].clone();
    let pdir = std::path::PathBuf::from(project["path"].as_str().unwrap());
    std::fs::write(pdir.join("t.R"), SCRIPT).unwrap();
    let mut b = Bench {
        c,
        token: rho.token.clone(),
        pid: project["id"].as_str().unwrap().to_string(),
        digest: sha256_hex(SCRIPT.as_bytes()),
    };
    // Warm-up: the Host starts on the first run.
    let (status, v) = b.submit("warm");
    assert_eq!(status, 200, "{v}");
    b.wait("warm");

    let (mut bare, mut managed) = (Vec::new(), Vec::new());
    for i in 0..SAMPLES {
        let t = Instant::now();
        let out = std::process::Command::new("Rscript")
            .args(["-e", "1"])
            .output()
            .expect("Rscript on PATH");
        assert!(out.status.success());
        bare.push(ms(t.elapsed()));
        let op = format!("lat-{i}");
        let t = Instant::now();
        let (status, v) = b.submit(&op);
        assert_eq!(status, 200, "{v}");
        b.wait(&op);
        managed.push(ms(t.elapsed()));
    }
    let (bare50, managed50) = (p50(bare), p50(managed));

    // Throughput: keep 2 in flight; each time both slots were just filled, try a third. It is
    // refused with `limit` unless one of the two already ended (then it is a real run, counted).
    let t = Instant::now();
    let (mut next, mut done, mut refused, mut raced) = (0usize, 0usize, 0usize, 0usize);
    let mut flight: Vec<String> = Vec::new();
    while done < SAMPLES {
        let mut filled = false;
        while flight.len() < 2 && next < SAMPLES {
            let op = format!("thr-{next}");
            let (status, v) = b.submit(&op);
            assert_eq!(status, 200, "{v}");
            flight.push(op);
            next += 1;
            filled = true;
        }
        if filled && flight.len() == 2 && next < SAMPLES {
            let op = format!("thr-{next}");
            let (status, v) = b.submit(&op);
            match status {
                429 => {
                    assert_eq!(
                        v["error"]["details"]["limit"], "maxConcurrentActions",
                        "{v}"
                    );
                    refused += 1;
                }
                200 => {
                    raced += 1;
                    flight.push(op);
                    next += 1;
                }
                _ => panic!("third submission: {status} {v}"),
            }
        }
        let mut still = Vec::new();
        for op in std::mem::take(&mut flight) {
            if b.ended(&op) {
                done += 1;
            } else {
                still.push(op);
            }
        }
        flight = still;
        std::thread::sleep(Duration::from_millis(1));
    }
    let elapsed = t.elapsed();
    println!("{}", machine_line());
    println!("| measure | result |");
    println!("|---|---|");
    println!("| bare `Rscript -e 1`, p50 of {SAMPLES} | {bare50:.1} ms |");
    println!("| r.execute trivial script, submit -> observed exited, p50 of {SAMPLES} | {managed50:.1} ms |");
    println!("| overhead at p50 | {:.1} ms |", managed50 - bare50);
    println!(
        "| {SAMPLES} trivial runs, 2 in flight | {:.2} s ({:.1} runs/s); third submissions: {refused} refused with limit, {raced} accepted because a run had just ended |",
        elapsed.as_secs_f64(),
        SAMPLES as f64 / elapsed.as_secs_f64()
    );
}
