//! Documents benchmark: acknowledged `document.edit` per second over HTTP next to the journal's raw rate, and buffer reopen time.
//!
//! Usage: `cargo build --release && ./target/release/docs_bench [--quick]`.

#![allow(clippy::print_stdout)]
// a bench driver reports on stdout
// A bench driver aborts on any failure: a half-measured run must not print a figure.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_actors::codec;
use rho_actors::documents::text::ByteEdit;
use rho_actors::documents::{DocReply, DocumentEvent};
use rho_actors::entity::Stamped;
use rho_bench::http::{Conn, Rho};
use rho_bench::{machine_line, quantile_us, scratch};
use rho_journal::{EntityRef, Journal, JournalConfig, NewRecord};
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

const ROUNDS: usize = 4;

fn edit_record(doc: uuid::Uuid, at: u64) -> NewRecord {
    let ev = DocumentEvent::Edited {
        edits: vec![ByteEdit {
            start: at,
            end: at,
            text: "x".into(),
        }],
    };
    NewRecord {
        entity: EntityRef {
            kind: "document".into(),
            id: doc,
        },
        time_ms: 1_700_000_000_000,
        principal: "agent:bench".into(),
        change_id: Some(format!("c{at}")),
        kind: "document.edited".into(),
        codec: codec::CURRENT_CODEC,
        payload: codec::encode(&Stamped::<DocumentEvent, DocReply> {
            event: ev,
            identity: None,
        })
        .unwrap(),
    }
}

/// The journal's own acknowledged rate with `writers` threads and the record of one edit.
fn journal_rate(dir: &Path, name: &str, writers: usize, budget: Duration) -> f64 {
    let j = Arc::new(
        Journal::create(
            &dir.join(name),
            uuid::Uuid::new_v4(),
            JournalConfig::default(),
        )
        .unwrap(),
    );
    let started = Instant::now();
    let n: u64 = std::thread::scope(|s| {
        (0..writers)
            .map(|_| {
                let j = j.clone();
                s.spawn(move || {
                    let id = uuid::Uuid::new_v4();
                    let mut k = 0;
                    while started.elapsed() < budget {
                        j.append(vec![edit_record(id, k)]).unwrap();
                        k += 1;
                    }
                    k
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .sum()
    });
    j.close().unwrap();
    n as f64 / started.elapsed().as_secs_f64()
}

/// `editors` threads, each appending to its own buffer over HTTP; (edits/s, p50 µs).
fn http_rate(
    rho: &Rho,
    project: &str,
    docs: &[String],
    editors: usize,
    budget: Duration,
) -> (f64, f64) {
    let started = Instant::now();
    let all: Vec<Vec<Duration>> = std::thread::scope(|s| {
        (0..editors)
            .map(|e| {
                let doc = docs[e].clone();
                s.spawn(move || {
                    let mut c = Conn::open(rho.port).unwrap();
                    let read = format!(r#"{{"projectId":"{project}","documentId":"{doc}"}}"#);
                    let (_, body) = c.post("/api/v2/document.read", Some(&rho.token), &read).unwrap();
                    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
                    let (mut version, mut len) = (v["value"]["version"].as_u64().unwrap(), v["value"]["length"].as_u64().unwrap());
                    let mut lat = Vec::new();
                    while started.elapsed() < budget {
                        let body = format!(
                            r#"{{"projectId":"{project}","documentId":"{doc}","expectedVersion":{version},"changeId":"b{version}","edits":[{{"start":{len},"end":{len},"text":"x"}}]}}"#
                        );
                        let t = Instant::now();
                        let (status, reply) = c.post("/api/v2/document.edit", Some(&rho.token), &body).unwrap();
                        assert_eq!(status, 200, "{}", String::from_utf8_lossy(&reply));
                        lat.push(t.elapsed());
                        version += 1;
                        len += 1;
                    }
                    lat
                })
            })
            .collect::<Vec<_>>()
            .into_iter()
            .map(|h| h.join().unwrap())
            .collect()
    });
    let lat: Vec<Duration> = all.into_iter().flatten().collect();
    (
        lat.len() as f64 / started.elapsed().as_secs_f64(),
        quantile_us(&lat, 0.5),
    )
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// A project whose one document has `edits` edits; returns its folder.
fn long_buffer(base: &Path, edits: u64) -> std::path::PathBuf {
    let dir = base.join("long");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.txt"), "").unwrap();
    let pid = uuid::Uuid::new_v4();
    let j = Journal::create(
        &rho_actors::open::journal_dir(&dir),
        pid,
        JournalConfig::default(),
    )
    .unwrap();
    let doc = uuid::Uuid::new_v4();
    let open = DocumentEvent::Opened {
        path: "a.txt".into(),
        text: String::new(),
        disk_digest: None,
    };
    let rec = |ev: DocumentEvent, kind: &str| NewRecord {
        entity: EntityRef {
            kind: "document".into(),
            id: doc,
        },
        time_ms: 1_700_000_000_000,
        principal: "local".into(),
        change_id: None,
        kind: kind.into(),
        codec: codec::CURRENT_CODEC,
        payload: codec::encode(&Stamped::<DocumentEvent, DocReply> {
            event: ev,
            identity: None,
        })
        .unwrap(),
    };
    j.append(vec![rec(open, "document.opened")]).unwrap();
    let mut at = 0;
    while at < edits {
        let batch: Vec<NewRecord> = (at..(at + 4096).min(edits))
            .map(|k| edit_record(doc, k))
            .collect();
        at += batch.len() as u64;
        j.submit(batch, Box::new(|r| assert!(r.is_ok()))).unwrap();
    }
    j.close().unwrap();
    dir
}

fn reopen_ms(dir: &Path) -> (f64, Option<u64>) {
    let t = Instant::now();
    let opened =
        rho_actors::open::open_project(dir, &rho_actors::open::ProjectConfig::default()).unwrap();
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    let snap = opened.stats.snapshot_seq;
    opened.journal.close().unwrap();
    (ms, snap)
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let budget = Duration::from_millis(if quick { 300 } else { 1500 });
    let dir = scratch("docs-bench");
    let rho = Rho::start(&dir.join("svc"));
    let mut c = Conn::open(rho.port).unwrap();
    let (_, body) = c
        .post(
            "/api/v2/project.create",
            Some(&rho.token),
            r#"{"name":"bench"}"#,
        )
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
    let project = v["value"]["id"].as_str().unwrap().to_string();
    let pdir = std::path::PathBuf::from(v["value"]["path"].as_str().unwrap());
    let mut docs = Vec::new();
    for i in 0..16 {
        std::fs::write(pdir.join(format!("d{i}.txt")), "").unwrap();
        let (_, body) = c
            .post(
                "/api/v2/document.open",
                Some(&rho.token),
                &format!(r#"{{"projectId":"{project}","path":"d{i}.txt"}}"#),
            )
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        docs.push(v["value"]["id"].as_str().unwrap().to_string());
    }
    drop(c);
    println!("machine: {}\n", machine_line());
    println!(
        "Interleaved: {ROUNDS} rounds, {} ms per cell; medians over rounds.\n",
        budget.as_millis()
    );
    println!("| writers | document.edit over HTTP /s | edit p50 | journal raw /s (same record) | edits vs journal |\n|---|---|---|---|---|");
    for n in [1usize, 16] {
        let mut rows = Vec::new();
        for r in 0..ROUNDS {
            // Alternate which goes first: the disk's sync latency drifts within a run.
            let (h, p50, j) = if r % 2 == 0 {
                let (h, p50) = http_rate(&rho, &project, &docs, n, budget);
                (h, p50, journal_rate(&dir, &format!("j{n}-{r}"), n, budget))
            } else {
                let j = journal_rate(&dir, &format!("j{n}-{r}"), n, budget);
                let (h, p50) = http_rate(&rho, &project, &docs, n, budget);
                (h, p50, j)
            };
            rows.push([h, p50, j]);
        }
        let col = |i: usize| median(rows.iter().map(|r| r[i]).collect());
        let ratio = median(rows.iter().map(|r| r[0] / r[2]).collect());
        println!(
            "| {n} | {:.0} | {:.0} µs | {:.0} | {ratio:.2}x |",
            col(0),
            col(1),
            col(2)
        );
    }
    drop(rho);
    let edits = if quick { 20_000 } else { 100_000 };
    let long = long_buffer(&dir, edits);
    let (full, _) = reopen_ms(&long);
    // A snapshot at the end, as the project actor writes one after 100,000 events.
    {
        let opened =
            rho_actors::open::open_project(&long, &rho_actors::open::ProjectConfig::default())
                .unwrap();
        let bytes = opened.state.encode().unwrap();
        opened
            .journal
            .write_snapshot(opened.state.last_seq, &bytes)
            .unwrap();
        opened.journal.close().unwrap();
    }
    let (snap, seq) = reopen_ms(&long);
    println!("\n| buffer reopen | edits | time |\n|---|---|---|");
    println!("| full replay | {edits} | {full:.0} ms |");
    println!(
        "| snapshot (seq {}) + tail | {edits} | {snap:.0} ms (goal <= 200 ms) |",
        seq.unwrap_or(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
