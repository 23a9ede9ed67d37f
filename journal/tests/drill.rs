//! Crash drills against real processes: kill -9 at random moments, a power-loss model that cuts
//! or garbles bytes past the durable offset, a negative control, and a second writer refused.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use common::child::*;
use common::*;
use rand::{Rng, SeedableRng};
use rho_journal::{inspect, Journal, JournalConfig, WriterLease};
use uuid::Uuid;

const LEASE_ENV: &str = "RHO_JOURNAL_TEST_LEASE";

fn child_mode() {
    if let Some(dir) = std::env::var_os(WRITER_ENV) {
        writer_child(Path::new(&dir));
    }
}

fn new_project() -> (tempfile::TempDir, std::path::PathBuf) {
    let (t, dir) = temp_journal();
    Journal::create(&dir, Uuid::new_v4(), JournalConfig::default())
        .unwrap()
        .close()
        .unwrap();
    (t, dir)
}

#[test]
fn kill9_drill() {
    child_mode();
    let (t, dir) = new_project();
    let seg = ("RHO_JOURNAL_TEST_SEGMENT_BYTES", (256 * 1024).to_string());
    let snaps = ("RHO_JOURNAL_TEST_SNAPSHOTS", "1".to_string());
    let mut rng = rand::rngs::StdRng::seed_from_u64(0x5eed);
    let mut acked = BTreeMap::new();
    let start = Instant::now();
    let mut kills = 0;
    while kills < 30 && start.elapsed() < Duration::from_secs(18) {
        let child = spawn_writer("kill9_drill", &dir, &[seg.clone(), snaps.clone()]);
        let out = kill_after(child, Duration::from_millis(rng.gen_range(20..250)));
        parse_acks(&out, &mut acked).unwrap();
        check_acked(&dir, &acked).unwrap_or_else(|e| panic!("after kill {kills}: {e}"));
        kills += 1;
    }
    assert!(kills >= 25, "only {kills} kills in time");
    eprintln!(
        "DRILLSTAT kills {kills} acked {} in {:?}",
        acked.len(),
        start.elapsed()
    );
    assert!(
        acked.len() > 100,
        "only {} acknowledged records",
        acked.len()
    );
    // A restart opens, repairs any torn tail, and still has everything.
    let (j, _) = Journal::open(&dir, JournalConfig::default()).unwrap();
    drop(j);
    check_acked(&dir, &acked).unwrap();

    // Negative control: cutting below the durable offset must be reported as lost data.
    let (&last_seq, _) = acked.iter().next_back().unwrap();
    let recs = inspect::scan(&dir, false).unwrap().records;
    let last = recs.iter().find(|r| r.seq == last_seq).unwrap();
    for (name, len) in [("boundary", last.offset), ("mid-frame", last.offset + 13)] {
        let work = t.path().join(name);
        copy_dir(&dir, &work);
        for p in segment_files(&work) {
            if p.file_name().unwrap().to_str().unwrap()
                > segment_path(&work, last.segment)
                    .file_name()
                    .unwrap()
                    .to_str()
                    .unwrap()
            {
                std::fs::remove_file(p).unwrap();
            }
        }
        cut(&segment_path(&work, last.segment), len);
        let verdict = check_acked(&work, &acked);
        assert!(verdict.is_err(), "{name}: the checker missed lost data");
    }
}

#[test]
fn power_loss_model() {
    child_mode();
    let (_t, dir) = new_project();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xfeed);
    let mut acked = BTreeMap::new();
    let start = Instant::now();
    let (mut rounds, mut garbled) = (0, 0);
    while rounds < 12 && start.elapsed() < Duration::from_secs(10) {
        let child = spawn_writer("power_loss_model", &dir, &[]);
        let out = kill_after(child, Duration::from_millis(rng.gen_range(30..200)));
        parse_acks(&out, &mut acked).unwrap();
        // Bytes past the last acknowledged frame were never acknowledged: a power cut may have
        // lost or garbled them.
        let scan = inspect::scan(&dir, false).unwrap();
        let seg = segment_files(&dir).pop().unwrap();
        let len = std::fs::metadata(&seg).unwrap().len();
        // The write holding the last acknowledged seq was synced whole (its other frames' acks
        // may not have been printed yet): the durable offset is that write's end.
        let durable_end = acked
            .keys()
            .next_back()
            .and_then(|s| scan.records.iter().position(|r| r.seq == *s))
            .and_then(|i| scan.records[i..].iter().find(|r| r.write_end))
            .map_or(len, |r| r.offset + u64::from(r.bytes));
        if durable_end < len {
            garbled += 1;
            let p = rng.gen_range(durable_end..=len);
            let mut b = std::fs::read(&seg).unwrap();
            match rounds % 4 {
                0 => b.truncate(p as usize),
                1 => rng.fill(&mut b[p as usize..]),
                2 => b[p as usize..].iter_mut().for_each(|x| *x = 0),
                _ => {
                    b.truncate(p as usize);
                    b.resize(p as usize + 4096, 0);
                }
            }
            std::fs::write(&seg, b).unwrap();
        }
        check_acked(&dir, &acked).unwrap_or_else(|e| panic!("round {rounds}: {e}"));
        let (j, _) = Journal::open(&dir, JournalConfig::default())
            .unwrap_or_else(|e| panic!("round {rounds}: {e}"));
        drop(j);
        check_acked(&dir, &acked).unwrap();
        rounds += 1;
    }
    assert!(rounds >= 8, "only {rounds} rounds");
    assert!(garbled > 0, "no round had bytes past the durable offset");
    eprintln!(
        "DRILLSTAT rounds {rounds} garbled {garbled} acked {}",
        acked.len()
    );
}

#[test]
fn second_writer_is_refused_with_the_holder() {
    if let Some(p) = std::env::var_os(LEASE_ENV) {
        let msg = match WriterLease::acquire(Path::new(&p), "pid other") {
            Ok(_) => "acquired".to_string(),
            Err(rho_journal::LeaseError::Held { holder }) => format!("held:{holder}"),
            Err(e) => format!("error:{e}"),
        };
        use std::io::Write;
        let _ = writeln!(std::io::stdout(), "LEASE {msg}");
        return;
    }
    let t = tempfile::tempdir().unwrap();
    let path = t.path().join("lease");
    let run_child = || {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "second_writer_is_refused_with_the_holder",
                "--nocapture",
            ])
            .env(LEASE_ENV, &path)
            .output()
            .unwrap();
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .find_map(|l| l.strip_prefix("LEASE ").map(str::to_string))
            .unwrap_or_default()
    };
    let lease = WriterLease::acquire(&path, "pid 123 at http://127.0.0.1:5000").unwrap();
    assert_eq!(run_child(), "held:pid 123 at http://127.0.0.1:5000");
    drop(lease);
    assert_eq!(run_child(), "acquired");
    assert!(!WriterLease::is_held(&path));
}
