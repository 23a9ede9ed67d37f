//! Quick, rough throughput numbers for the journal (the real benchmark lives in `bench/`):
//! single-thread acknowledged appends, 8-thread group commit, and scan/open of a large journal.
//!
//! `cargo run --release -p rho-journal --example quickbench -- [DIR] [RECORDS]`

// A benchmark example aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use rho_journal::{inspect, EntityRef, Journal, JournalConfig, NewRecord};
use uuid::Uuid;

fn rec(i: u64, len: usize) -> NewRecord {
    NewRecord {
        entity: EntityRef {
            kind: "doc".into(),
            id: Uuid::from_u128(u128::from(i % 100)),
        },
        time_ms: i as i64,
        principal: "user:bench".into(),
        change_id: None,
        kind: "doc.edited".into(),
        codec: 1,
        payload: vec![7; len],
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let base = args
        .get(1)
        .map_or_else(std::env::temp_dir, std::path::PathBuf::from);
    let big: u64 = args
        .get(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let root = base.join(format!("rho-quickbench-{}", std::process::id()));
    let mut out = std::io::stderr();

    // 1. Single-thread acknowledged appends of 64 B.
    let dir = root.join("single/.rho/journal");
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default())?;
    let n = 2000u64;
    let t = Instant::now();
    for i in 0..n {
        j.append(vec![rec(i, 64)])?;
    }
    let secs = t.elapsed().as_secs_f64();
    writeln!(
        out,
        "single-thread 64 B append: {:.0} records/s ({:.3} ms each)",
        n as f64 / secs,
        secs * 1000.0 / n as f64
    )?;
    j.close()?;

    // 2. Concurrent acknowledged appends (group commit).
    for threads in [8u64, 64] {
        let dir = root.join(format!("group{threads}/.rho/journal"));
        let j = Arc::new(Journal::create(
            &dir,
            Uuid::new_v4(),
            JournalConfig::default(),
        )?);
        let t = Instant::now();
        let per = 16_000 / threads;
        let hs: Vec<_> = (0..threads)
            .map(|k| {
                let j = Arc::clone(&j);
                std::thread::spawn(move || {
                    for i in 0..per {
                        j.append(vec![rec(k * per + i, 64)]).expect("append");
                    }
                })
            })
            .collect();
        for h in hs {
            h.join().map_err(|_| "thread panicked")?;
        }
        let secs = t.elapsed().as_secs_f64();
        writeln!(
            out,
            "{threads} threads 64 B append: {:.0} records/s",
            (threads * per) as f64 / secs
        )?;
        j.close()?;
    }

    // 3. A large journal: write in big batches, then scan and open it.
    let dir = root.join("big/.rho/journal");
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default())?;
    let t = Instant::now();
    let mut i = 0;
    while i < big {
        let batch: Vec<NewRecord> = (i..(i + 1000).min(big)).map(|k| rec(k, 64)).collect();
        i += batch.len() as u64;
        j.append(batch)?;
    }
    writeln!(
        out,
        "wrote {big} records in batches of 1000: {:.2} s",
        t.elapsed().as_secs_f64()
    )?;
    j.close()?;
    drop(j);
    let t = Instant::now();
    let mut count = 0u64;
    let s = inspect::scan_with(&dir, false, |_| count += 1)?;
    let secs = t.elapsed().as_secs_f64();
    writeln!(
        out,
        "inspect::scan_with: {count} records in {secs:.3} s = {:.0} records/s, problem {:?}",
        count as f64 / secs,
        s.problem
    )?;
    let t = Instant::now();
    let (j, report) = Journal::open(&dir, JournalConfig::default())?;
    let secs = t.elapsed().as_secs_f64();
    writeln!(
        out,
        "Journal::open: {} records, {} segments in {secs:.3} s",
        report.records, report.segments
    )?;
    let t = Instant::now();
    let replayed = j.records_from(1)?.count();
    writeln!(
        out,
        "records_from(1): {replayed} records in {:.3} s",
        t.elapsed().as_secs_f64()
    )?;
    drop(j);
    std::fs::remove_dir_all(&root)?;
    Ok(())
}
