//! Console benchmark: `console.run` of `true` to its recorded exit next to `bash -c true`, and of
//! a command printing 50 MB next to `bash -c` of it read through a pipe, in the same run.
//!
//! Usage: `cargo build --release && cargo run --release -p rho-bench --bin console_bench`
//! (`RHO_BIN` names another `rho`). Goals (issue 16): at most 5 ms of overhead on the first,
//! at least 0.5x of bash's throughput on the second.

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, scratch};
use serde_json::{json, Value};
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const SAMPLES: usize = 20;
const BIG: &str = "head -c 50000000 /dev/zero";
const BIG_BYTES: u64 = 50_000_000;

/// POSTs as the local browser (no credential), or with `token`.
fn post_as(c: &mut Conn, token: Option<&str>, op: &str, body: &Value) -> Value {
    let (status, bytes) = c
        .post(&format!("/api/v2/{op}"), token, &body.to_string())
        .unwrap();
    let v: Value = serde_json::from_slice(&bytes).unwrap();
    assert_eq!(status, 200, "{op}: {v}");
    v["value"].clone()
}

fn post(c: &mut Conn, op: &str, body: &Value) -> Value {
    post_as(c, None, op, body)
}

fn p50(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

/// `console.run` of `command` as the local browser, then `console.list` until it is recorded
/// as exited; returns the wall time and the record.
fn console(c: &mut Conn, pid: &str, change: &str, command: &str) -> (Duration, Value) {
    let t = Instant::now();
    let r = post(
        c,
        "console.run",
        &json!({"projectId": pid, "changeId": change, "command": command}),
    );
    let id = r["commandId"].as_str().unwrap().to_string();
    loop {
        let list = post(c, "console.list", &json!({"projectId": pid}));
        let rec = list["commands"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["commandId"] == id.as_str())
            .cloned()
            .unwrap();
        assert_ne!(rec["state"], "unknown", "{rec}");
        if rec["state"] == "exited" {
            return (t.elapsed(), rec);
        }
        std::thread::sleep(Duration::from_micros(500));
    }
}

/// `bash -c command` with stdout read through a pipe; returns the wall time and bytes read.
fn bash(command: &str) -> (Duration, u64) {
    let t = Instant::now();
    let mut child = Command::new("bash")
        .args(["-c", command])
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut buf = vec![0u8; 64 * 1024];
    let mut n = 0u64;
    loop {
        let got = out.read(&mut buf).unwrap();
        if got == 0 {
            break;
        }
        n += got as u64;
    }
    assert!(child.wait().unwrap().success());
    (t.elapsed(), n)
}

fn main() {
    let dir = scratch("console-bench");
    let rho = Rho::start(&dir);
    let mut c = Conn::open(rho.port).unwrap();
    let project = post_as(
        &mut c,
        Some(&rho.token),
        "project.create",
        &json!({"name": "consolebench"}),
    );
    let pid = project["id"].as_str().unwrap().to_string();
    console(&mut c, &pid, "warm", "true");

    let (mut bare, mut recorded) = (Vec::new(), Vec::new());
    for i in 0..SAMPLES {
        bare.push(ms(bash("true").0));
        recorded.push(ms(console(&mut c, &pid, &format!("true-{i}"), "true").0));
    }
    let (bare50, rec50) = (p50(bare), p50(recorded));

    let (bash_big, n) = bash(BIG);
    assert_eq!(n, BIG_BYTES);
    let (console_big, rec) = console(&mut c, &pid, "big", BIG);
    assert_eq!(rec["stdoutBytes"], BIG_BYTES, "{rec}");
    let mbps = |d: Duration| BIG_BYTES as f64 / 1e6 / d.as_secs_f64();
    println!("{}", machine_line());
    println!("| measure | result |");
    println!("|---|---|");
    println!("| `bash -c true`, p50 of {SAMPLES} | {bare50:.1} ms |");
    println!("| `console.run` of `true` -> recorded exited, p50 of {SAMPLES} | {rec50:.1} ms |");
    println!(
        "| overhead at p50 (goal <= 5 ms) | {:.1} ms |",
        rec50 - bare50
    );
    println!(
        "| `bash -c '{BIG}'` read through a pipe | {:.0} ms ({:.0} MB/s) |",
        ms(bash_big),
        mbps(bash_big)
    );
    println!(
        "| `console.run` of it -> recorded exited (1 MiB head + 64 KiB tail kept) | {:.0} ms ({:.0} MB/s) |",
        ms(console_big),
        mbps(console_big)
    );
    println!(
        "| throughput vs bash (goal >= 0.5x) | {:.2}x |",
        bash_big.as_secs_f64() / console_big.as_secs_f64()
    );
}
