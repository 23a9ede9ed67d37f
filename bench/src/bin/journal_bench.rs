//! Journal benchmark: acknowledged appends against raw write+fdatasync and SQLite, group commit, replay.
//!
//! Usage: `cargo run --release -p rho-bench --features sqlite --bin journal_bench [-- --quick] [-- --writes-only]`,
//! or `journal_bench probe ...` for one column alone (see `probe`).
//! Writers are measured two ways: OS threads blocked in `append` (the "journal N" columns), and
//! logical writers on two event-loop threads using `submit` with a completion callback, the way
//! the service's owners write (the "submit" columns).
//! Prints a Markdown report (figures and ratios, with the machine line) on stdout.

#![allow(clippy::print_stdout)]
// a test/bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_actors::codec;
use rho_actors::entity::Stamped;
use rho_actors::project::{ProjectEvent, ProjectReply};
use rho_bench::{machine_line, quantile_us, rate, scratch, time_loop};
use rho_journal::{EntityRef, Journal, JournalConfig, NewRecord};
use std::fs::OpenOptions;
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const SIZES: [usize; 3] = [64, 256, 4096];
const ROUNDS: usize = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn record(size: usize, id: uuid::Uuid) -> NewRecord {
    NewRecord {
        entity: EntityRef {
            kind: "bench".into(),
            id,
        },
        time_ms: 1_700_000_000_000,
        principal: "operator".into(),
        change_id: None,
        kind: "bench.appended".into(),
        codec: 1,
        payload: vec![0x5a; size],
    }
}

/// The physical limit: write `size` bytes then fdatasync, in a loop, on the same file system.
fn raw(dir: &Path, size: usize, budget: Duration) -> (f64, f64) {
    let mut f = OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join(format!("raw-{size}")))
        .unwrap();
    let buf = vec![0x5a; size];
    let started = Instant::now();
    let lat = time_loop(budget, 50, || {
        f.write_all(&buf).unwrap();
        f.sync_data().unwrap();
    });
    (
        rate(lat.len() as u64, started.elapsed()),
        quantile_us(&lat, 0.5),
    )
}

/// The true physical limit: `pwrite` of `size` bytes then fdatasync, in a loop, into a file
/// whose blocks were written (zeros) and synced beforehand, so no sync changes the file's size
/// or extent metadata (what SQLite's reused WAL gets). Wraps around at the preallocated end.
fn raw_prealloc(dir: &Path, size: usize, budget: Duration) -> f64 {
    raw_prealloc_writes(dir, size, (size * 16_384).max(8 << 20), budget)
}

/// The disk's own limit for 64 writers: 64 frames of `size` in one `pwrite` + fdatasync into a
/// preallocated file, in records per second (a group commit can do no better).
fn raw_prealloc_64(dir: &Path, size: usize, budget: Duration) -> f64 {
    64.0 * raw_prealloc_writes(dir, frame_bytes(size) * 64, 64 << 20, budget)
}

/// A new empty file at `path`, open for reading and writing (a reference's scratch file).
fn empty_file(path: &Path) -> std::fs::File {
    OpenOptions::new()
        .create(true)
        .truncate(true)
        .read(true)
        .write(true)
        .open(path)
        .unwrap()
}

/// `pwrite` of `size` bytes then fdatasync per loop into a file of `cap` zeros, wrapping around.
fn raw_prealloc_writes(dir: &Path, size: usize, cap: usize, budget: Duration) -> f64 {
    let path = dir.join(format!("raw-prealloc-{size}"));
    let mut f = empty_file(&path);
    f.write_all(&vec![0u8; cap]).unwrap();
    f.sync_all().unwrap();
    let buf = vec![0x5a; size];
    let mut off = 0usize;
    let started = Instant::now();
    let lat = time_loop(budget, 50, || {
        if off + size > cap {
            off = 0;
        }
        f.write_all_at(&buf, off as u64).unwrap();
        f.sync_data().unwrap();
        off += size;
    });
    let r = rate(lat.len() as u64, started.elapsed());
    drop(f);
    let _ = std::fs::remove_file(&path);
    r
}

/// The journal's own I/O pattern for 64 writers without the journal: 64 frames of `size` per
/// `pwrite` + fdatasync into a file that starts empty and, whenever a write would pass the
/// zero-filled end, carries 1 MiB of zeros after its frames in the same `pwrite` (the in-band
/// preallocation of decision 0009 at its steady step). In records per second: the limit of a
/// group commit that keeps every sync off the file's size and extents by zero-filling ahead.
fn raw_infill_64(dir: &Path, size: usize, budget: Duration) -> f64 {
    const STEP: usize = 1 << 20;
    let path = dir.join(format!("raw-infill-{size}"));
    let f = empty_file(&path);
    let data = frame_bytes(size) * 64;
    let mut buf = vec![0x5a; data];
    let (mut off, mut allocated) = (0usize, 0usize);
    let started = Instant::now();
    let lat = time_loop(budget, 50, || {
        buf.truncate(data);
        if off + data > allocated {
            allocated = (off + data).max(allocated + STEP);
            buf.resize(allocated - off, 0);
        }
        f.write_all_at(&buf, off as u64).unwrap();
        f.sync_data().unwrap();
        off += data;
    });
    let r = 64.0 * rate(lat.len() as u64, started.elapsed());
    drop(f);
    let _ = std::fs::remove_file(&path);
    r
}

/// Bytes the journal writes for one bench record of `size` payload bytes (its frame).
fn frame_bytes(size: usize) -> usize {
    record(size, uuid::Uuid::nil()).frame_bytes()
}

fn journal_at(dir: &Path, name: &str) -> Journal {
    Journal::create(
        &dir.join(name),
        uuid::Uuid::new_v4(),
        JournalConfig::default(),
    )
    .unwrap()
}

/// `writers` threads each appending (and waiting for its acknowledgement) in a loop.
fn journal_rate(dir: &Path, name: &str, size: usize, writers: usize, budget: Duration) -> f64 {
    let journal = Arc::new(journal_at(dir, name));
    let started = Instant::now();
    let counts: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|_| {
                let j = journal.clone();
                s.spawn(move || {
                    let id = uuid::Uuid::new_v4();
                    let mut n = 0u64;
                    while started.elapsed() < budget {
                        j.append(vec![record(size, id)]).unwrap();
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let r = rate(counts.iter().sum(), started.elapsed());
    journal.close().unwrap();
    r
}

/// `writers` logical writers the way the service's owners write: each submits a record with a
/// completion callback (`Journal::submit`) and submits its next once that record is durable,
/// driven by `loops` event-loop threads (the service's actors run on a few runtime threads;
/// no OS thread blocks per writer). Each loop thread re-submits for every completion it drains.
fn journal_submit_rate(
    dir: &Path,
    name: &str,
    size: usize,
    writers: usize,
    loops: usize,
    budget: Duration,
) -> f64 {
    let journal = Arc::new(journal_at(dir, name));
    let started = Instant::now();
    let counts: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..loops)
            .map(|l| {
                let j = journal.clone();
                let mine = (l..writers).step_by(loops).count();
                s.spawn(move || {
                    let (tx, rx) = std::sync::mpsc::channel::<usize>();
                    let ids: Vec<uuid::Uuid> = (0..mine).map(|_| uuid::Uuid::new_v4()).collect();
                    let submit = |w: usize| {
                        let tx = tx.clone();
                        j.submit(
                            vec![record(size, ids[w])],
                            Box::new(move |r| {
                                r.unwrap();
                                let _ = tx.send(w);
                            }),
                        )
                        .unwrap();
                    };
                    (0..mine).for_each(submit);
                    let (mut n, mut in_flight) = (0u64, mine);
                    while in_flight > 0 {
                        let w = rx.recv().unwrap();
                        n += 1;
                        in_flight -= 1;
                        if started.elapsed() < budget {
                            submit(w);
                            in_flight += 1;
                        }
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let r = rate(counts.iter().sum(), started.elapsed());
    journal.close().unwrap();
    r
}

fn sqlite_rate(dir: &Path, tag: &str, size: usize, writers: usize, budget: Duration) -> f64 {
    let path = dir.join(format!("sqlite-{tag}-{size}-{writers}.db"));
    {
        let c = rusqlite::Connection::open(&path).unwrap();
        c.pragma_update(None, "journal_mode", "WAL").unwrap();
        c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v BLOB)", [])
            .unwrap();
    }
    let started = Instant::now();
    let counts: Vec<u64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..writers)
            .map(|_| {
                let path = path.clone();
                s.spawn(move || {
                    let c = rusqlite::Connection::open(&path).unwrap();
                    c.pragma_update(None, "synchronous", "FULL").unwrap();
                    c.busy_timeout(Duration::from_secs(30)).unwrap();
                    let blob = vec![0x5au8; size];
                    let mut n = 0u64;
                    while started.elapsed() < budget {
                        c.execute("INSERT INTO t (v) VALUES (?1)", [&blob]).unwrap();
                        n += 1;
                    }
                    n
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    rate(counts.iter().sum(), started.elapsed())
}

/// Writes `events` project setting events in large batches (the shape of a long-lived project).
fn fill(journal: &Journal, project: uuid::Uuid, events: u64) {
    let mut i = 0u64;
    while i < events {
        let n = (events - i).min(4096);
        let batch = (0..n)
            .map(|k| {
                let ev = ProjectEvent::SettingSet {
                    key: format!("k{}", (i + k) % 1000),
                    value: Some(format!("{}", i + k)),
                };
                NewRecord {
                    entity: EntityRef {
                        kind: "project".into(),
                        id: project,
                    },
                    time_ms: 1_700_000_000_000,
                    principal: "agent:bench".into(),
                    change_id: None,
                    kind: "project.setting-set".into(),
                    codec: codec::CURRENT_CODEC,
                    payload: codec::encode(&Stamped::<ProjectEvent, ProjectReply> {
                        event: ev,
                        identity: None,
                    })
                    .unwrap(),
                }
            })
            .collect();
        journal
            .submit(
                batch,
                Box::new(|r| {
                    r.unwrap();
                }),
            )
            .unwrap();
        i += n;
    }
}

/// Reopens a project in a new process (this binary, `reopen DIR`) and returns its seconds.
fn reopen_in_new_process(dir: &Path) -> (f64, String) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .arg("reopen")
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let secs = text
        .split_whitespace()
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or(f64::NAN);
    (secs, text)
}

fn reopen(dir: &Path) {
    let started = Instant::now();
    let opened =
        rho_actors::open::open_project(dir, &rho_actors::open::ProjectConfig::default()).unwrap();
    let secs = started.elapsed().as_secs_f64();
    #[allow(clippy::print_stdout)]
    {
        println!(
            "{secs:.3} s; snapshot at {:?}; {} records folded after it; last seq {}",
            opened.stats.snapshot_seq, opened.stats.records, opened.state.last_seq
        );
    }
    opened.journal.close().unwrap();
}

fn replay_section(base: &Path, events: u64, tail_bytes: u64) -> String {
    let dir = base.join("replay-project");
    std::fs::create_dir_all(&dir).unwrap();
    let id = uuid::Uuid::new_v4();
    let started = Instant::now();
    let journal = Journal::create(
        &rho_actors::open::journal_dir(&dir),
        id,
        JournalConfig::default(),
    )
    .unwrap();
    fill(&journal, id, events);
    journal.close().unwrap();
    drop(journal);
    let fill_secs = started.elapsed().as_secs_f64();
    let size: u64 = std::fs::read_dir(rho_actors::open::journal_dir(&dir))
        .unwrap()
        .flatten()
        .map(|e| e.metadata().map(|m| m.len()).unwrap_or(0))
        .sum();
    let (full, full_text) = reopen_in_new_process(&dir);

    // Snapshot at the end, then a tail of `tail_bytes` of further events.
    let opened =
        rho_actors::open::open_project(&dir, &rho_actors::open::ProjectConfig::default()).unwrap();
    let bytes = opened.state.encode().unwrap();
    opened
        .journal
        .write_snapshot(opened.state.last_seq, &bytes)
        .unwrap();
    let per_event = (size / events.max(1)).max(1);
    let tail_events = tail_bytes / per_event;
    fill(&opened.journal, id, tail_events);
    opened.journal.close().unwrap();
    drop(opened);
    let (snap, snap_text) = reopen_in_new_process(&dir);
    format!(
        "| replay, no snapshot | {events} events, {:.1} MB journal | {full:.3} s reopen ({:.0} events/s) | {full_text} |\n\
         | replay, snapshot + tail | {tail_events} tail events, {:.1} MB tail | {snap:.3} s reopen | {snap_text} (goal <= 1 s) |\n\
         | (journal written in) | | {fill_secs:.1} s | bulk batches of 4096 |\n",
        size as f64 / 1e6,
        events as f64 / full,
        (tail_events * per_event) as f64 / 1e6,
    )
}

/// One column alone, for tracing (`strace -f -c`, `perf stat`): `probe journal SIZE WRITERS MS`
/// or `probe prealloc SIZE 1 MS` (the preallocated reference writing SIZE bytes), or
/// `probe prealloc-frame SIZE 1 MS` (writing the journal frame of a SIZE-byte payload), or
/// `probe infill-64 SIZE 64 MS` (64 frames per write over a tail zero-filled in-band).
fn probe(args: &[String]) {
    let what = args[2].as_str();
    let size: usize = args[3].parse().unwrap();
    let writers: usize = args[4].parse().unwrap();
    let budget = Duration::from_millis(args[5].parse().unwrap());
    let dir = scratch("journal-probe");
    let r = match what {
        "journal" => journal_rate(&dir, "probe", size, writers, budget),
        "prealloc" => raw_prealloc(&dir, size, budget),
        "prealloc-frame" => raw_prealloc(&dir, frame_bytes(size), budget),
        "prealloc-64" => raw_prealloc_64(&dir, size, budget),
        "infill-64" => raw_infill_64(&dir, size, budget),
        "submit" => journal_submit_rate(&dir, "probe", size, writers, writers.min(2), budget),
        "prealloc-n" => {
            writers as f64
                * raw_prealloc_writes(&dir, frame_bytes(size) * writers, 64 << 20, budget)
        }
        other => panic!("unknown probe {other}"),
    };
    let _ = std::fs::remove_dir_all(&dir);
    println!("{what} {size} B x {writers}: {r:.0} /s");
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("reopen") {
        reopen(Path::new(&args[2]));
        return;
    }
    if args.get(1).map(String::as_str) == Some("probe") {
        probe(&args);
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 100 } else { 500 });
    let dir = scratch("journal-bench");
    let mut report = String::new();
    report.push_str(&format!("machine: {}\n\n", machine_line()));
    report.push_str(&format!(
        "Interleaved: {ROUNDS} rounds per size; each round measures every column for {} ms. \
         Figures are medians over rounds; ratios are medians of per-round ratios.\n\n",
        budget.as_millis()
    ));
    report.push_str("| size | raw write+fdatasync /s | fdatasync p50 | raw pwrite+fdatasync preallocated /s | preallocated, frame size /s | journal 1 writer /s | journal/raw | journal/preallocated | journal/preallocated frame size | journal 8 /s | journal 64 /s | 64 vs 1 | disk limit for 64 (64 frames per write) /s | journal 64/that limit | SQLite 1 /s | SQLite 8 /s | SQLite 64 /s | journal/SQLite at 1 | at 64 | submit 1 /s | submit 64 /s | submit 64 vs 1 | limit with in-band zero-fill (64 frames per write) /s | that limit vs submit 1 | submit 64/that limit |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|\n");
    for size in SIZES {
        let mut rows: Vec<[f64; 14]> = Vec::new();
        for round in 0..ROUNDS {
            let tag = format!("{size}-{round}");
            let (raw_rate, sync_p50) = raw(&dir, size, budget);
            let pre = raw_prealloc(&dir, size, budget);
            let pre_frame = raw_prealloc(&dir, frame_bytes(size), budget);
            let j1 = journal_rate(&dir, &format!("j1-{tag}"), size, 1, budget);
            let j8 = journal_rate(&dir, &format!("j8-{tag}"), size, 8, budget);
            let j64 = journal_rate(&dir, &format!("j64-{tag}"), size, 64, budget);
            let s1 = sqlite_rate(&dir, &tag, size, 1, budget);
            let s8 = sqlite_rate(&dir, &tag, size, 8, budget);
            let s64 = sqlite_rate(&dir, &tag, size, 64, budget);
            let pre64 = raw_prealloc_64(&dir, size, budget);
            let q1 = journal_submit_rate(&dir, &format!("q1-{tag}"), size, 1, 1, budget);
            let q64 = journal_submit_rate(&dir, &format!("q64-{tag}"), size, 64, 2, budget);
            let infill = raw_infill_64(&dir, size, budget);
            rows.push([
                raw_rate, sync_p50, j1, j8, j64, s1, s8, s64, pre, pre_frame, pre64, q1, q64,
                infill,
            ]);
        }
        let col = |i: usize| median(rows.iter().map(|r| r[i]).collect());
        let ratio = |a: usize, b: usize| median(rows.iter().map(|r| r[a] / r[b]).collect());
        report.push_str(&format!(
            "| {size} B | {:.0} | {:.0} µs | {:.0} | {:.0} | {:.0} | {:.2}x | {:.2}x | {:.2}x | {:.0} | {:.0} | {:.1}x | {:.0} | {:.2}x | {:.0} | {:.0} | {:.0} | {:.2}x | {:.1}x | {:.0} | {:.0} | {:.1}x | {:.0} | {:.1}x | {:.2}x |\n",
            col(0), col(1), col(8), col(9), col(2), ratio(2, 0), ratio(2, 8), ratio(2, 9), col(3), col(4), ratio(4, 2), col(10), ratio(4, 10), col(5), col(6), col(7), ratio(2, 5), ratio(4, 7), col(11), col(12), ratio(12, 11), col(13), ratio(13, 11), ratio(12, 13)
        ));
    }
    if !args.iter().any(|a| a == "--writes-only") {
        report.push_str("\n| replay | input | result | detail |\n|---|---|---|---|\n");
        let (events, tail) = if quick {
            (100_000, 8 << 20)
        } else {
            (1_000_000, 64 << 20)
        };
        report.push_str(&replay_section(&dir, events, tail));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(report.as_bytes());
}
