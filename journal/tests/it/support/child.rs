//! Self-exec writer children for crash drills: the child appends from several threads and prints
//! `ack <seq> <tag>` only after each append is durable; the parent kills it and checks.
#![allow(dead_code, unreachable_pub)]

use std::collections::{BTreeMap, HashMap};
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rho_journal::inspect::{self, ProblemKind};
use rho_journal::{Journal, JournalConfig, WriterLease};

/// Env var naming the journal dir a writer child writes to.
pub const WRITER_ENV: &str = "RHO_JOURNAL_TEST_WRITER_DIR";
/// Env var: segment size for the child.
pub const SEGMENT_ENV: &str = "RHO_JOURNAL_TEST_SEGMENT_BYTES";
/// Env var: the child writes a snapshot now and then.
pub const SNAPSHOT_ENV: &str = "RHO_JOURNAL_TEST_SNAPSHOTS";

/// Payload length of a tag (varies so frames differ in size).
pub fn payload_len(tag: u64) -> usize {
    16 + (tag % 300) as usize
}

/// The body of a writer child; never returns (killed by the parent, or exits after 30 s).
pub fn writer_child(dir: &Path) -> ! {
    let seg: u64 = std::env::var(SEGMENT_ENV)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(64 * 1024 * 1024);
    let snapshots = std::env::var(SNAPSHOT_ENV).is_ok();
    let cfg = JournalConfig {
        segment_bytes: seg,
        ..JournalConfig::default()
    };
    let lease_path = dir.parent().expect("journal has a parent").join("lease");
    let _lease =
        WriterLease::acquire(&lease_path, &format!("pid {}", std::process::id())).expect("lease");
    let (j, _) = Journal::open(dir, cfg).expect("child open");
    let j = Arc::new(j);
    let base = u64::from(std::process::id()) << 32;
    for t in 0..4u64 {
        let j = Arc::clone(&j);
        std::thread::spawn(move || {
            for i in 0u64.. {
                let n = 1 + (i % 3);
                let tags: Vec<u64> = (0..n).map(|k| base + (t << 24) + i * 4 + k).collect();
                let recs = tags
                    .iter()
                    .map(|&tag| super::rec(t as u128, tag, payload_len(tag)))
                    .collect();
                let a = match j.append(recs) {
                    Ok(a) => a,
                    Err(_) => std::process::exit(4),
                };
                let mut out = String::new();
                for (k, tag) in tags.iter().enumerate() {
                    out.push_str(&format!("ack {} {tag}\n", a.first_seq + k as u64));
                }
                let mut so = std::io::stdout().lock();
                let _ = so.write_all(out.as_bytes());
                let _ = so.flush();
                drop(so);
                if snapshots && t == 0 && i % 5 == 4 {
                    let d = j.durable_seq();
                    if j.write_snapshot(d, format!("state at {d}").as_bytes())
                        .is_err()
                    {
                        std::process::exit(5);
                    }
                }
            }
        });
    }
    std::thread::sleep(Duration::from_secs(30));
    std::process::exit(3)
}

/// Spawns this test binary as a writer child running test `test_name`.
pub fn spawn_writer(test_name: &str, dir: &Path, extra_env: &[(&str, String)]) -> Child {
    let mut cmd = Command::new(std::env::current_exe().expect("current_exe"));
    cmd.args(["--exact", test_name, "--nocapture", "--test-threads=1"])
        .env(WRITER_ENV, dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null());
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("spawn child")
}

/// Reads a child's stdout on a thread; join to get it.
pub fn drain_stdout(child: &mut Child) -> std::thread::JoinHandle<String> {
    let mut out = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    })
}

/// Adds the complete `ack` lines of `out` to `acked` (seq -> tag); a seq acknowledged twice
/// with different tags means an acknowledged record was lost and its seq reused.
pub fn parse_acks(out: &str, acked: &mut BTreeMap<u64, u64>) -> Result<usize, String> {
    let mut n = 0;
    let complete = match out.rfind('\n') {
        Some(i) => &out[..=i],
        None => "",
    };
    for line in complete.lines() {
        let Some(rest) = line.strip_prefix("ack ") else {
            continue;
        };
        let mut it = rest.split(' ');
        let (Some(seq), Some(tag)) = (it.next(), it.next()) else {
            continue;
        };
        let (Ok(seq), Ok(tag)) = (seq.parse::<u64>(), tag.parse::<u64>()) else {
            continue;
        };
        if let Some(old) = acked.insert(seq, tag) {
            if old != tag {
                return Err(format!(
                    "seq {seq} acknowledged for tag {old}, later reused for {tag}"
                ));
            }
        }
        n += 1;
    }
    Ok(n)
}

/// The drill's checker: reads the journal read-only and reports any acknowledged record that is
/// missing or different, any corruption, and any seq gap.
pub fn check_acked(dir: &Path, acked: &BTreeMap<u64, u64>) -> Result<(), String> {
    let scan = inspect::scan(dir, false).map_err(|e| e.to_string())?;
    if let Some(p) = scan
        .problem
        .as_ref()
        .filter(|p| p.kind == ProblemKind::Corruption)
    {
        return Err(format!("corruption: {p:?}"));
    }
    let mut by_seq = HashMap::with_capacity(scan.records.len());
    for (i, r) in scan.records.iter().enumerate() {
        if r.seq != i as u64 + 1 {
            return Err(format!("seq gap at {}", r.seq));
        }
        by_seq.insert(r.seq, r);
    }
    for (&seq, &tag) in acked {
        match by_seq.get(&seq) {
            None => return Err(format!("lost acknowledged seq {seq}")),
            Some(r) if r.payload != super::rec(0, tag, payload_len(tag)).payload => {
                return Err(format!("acknowledged seq {seq} has a different payload"))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Kills after a delay (SIGKILL), waits, and returns the child's output.
pub fn kill_after(mut child: Child, delay: Duration) -> String {
    let reader = drain_stdout(&mut child);
    let start = Instant::now();
    while start.elapsed() < delay {
        if let Ok(Some(_)) = child.try_wait() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let _ = child.kill();
    let _ = child.wait();
    reader.join().unwrap_or_default()
}
