//! rho-bench: shared helpers for Rho's benchmark drivers (machine line, timing, percentiles, scratch folders).

// Bench helpers abort on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod http;
pub mod places;
pub mod table;

use std::path::PathBuf;
use std::time::{Duration, Instant};

/// One line naming the machine a figure was measured on.
pub fn machine_line() -> String {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split(':').nth(1))
                .map(|m| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown cpu".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease").unwrap_or_default();
    format!(
        "{} {} | {cpu} | {cores} cores | kernel {}",
        std::env::consts::OS,
        std::env::consts::ARCH,
        kernel.trim()
    )
}

/// A scratch folder on the disk-backed file system (never tmpfs): `$RHO_BENCH_DIR` or `target/bench-scratch`.
pub fn scratch(name: &str) -> PathBuf {
    let base = std::env::var_os("RHO_BENCH_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-scratch")
        });
    let dir = base.join(format!("{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

/// Runs `op` repeatedly for about `budget` (at least `min` times); returns per-op latencies.
pub fn time_loop(budget: Duration, min: usize, mut op: impl FnMut()) -> Vec<Duration> {
    let started = Instant::now();
    let mut lat = Vec::new();
    while lat.len() < min || started.elapsed() < budget {
        let t = Instant::now();
        op();
        lat.push(t.elapsed());
    }
    lat
}

/// The q-quantile (0..=1) of latencies, in microseconds.
pub fn quantile_us(lat: &[Duration], q: f64) -> f64 {
    if lat.is_empty() {
        return 0.0;
    }
    let mut v: Vec<Duration> = lat.to_vec();
    v.sort();
    let i = ((v.len() - 1) as f64 * q).round() as usize;
    v[i].as_secs_f64() * 1e6
}

/// Operations per second over a run.
pub fn rate(count: u64, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64().max(1e-9)
}

/// `VmRSS` and `VmHWM` (current and peak resident memory) of process `pid` ("self" for this
/// one), in bytes; 0 where unreadable.
pub fn memory(pid: &str) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}
