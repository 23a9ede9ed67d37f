//! Regression: bulk batches submitted without waiting, across segment rolls and reopens.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).

use rho_journal::{EntityRef, Journal, JournalConfig, NewRecord};
use std::sync::mpsc;

fn rec(id: uuid::Uuid, n: u64) -> NewRecord {
    NewRecord {
        entity: EntityRef {
            kind: "project".into(),
            id,
        },
        time_ms: 0,
        principal: "agent:bench".into(),
        change_id: None,
        kind: "project.setting-set".into(),
        codec: 1,
        payload: format!("value {n}").into_bytes(),
    }
}

fn fill(j: &Journal, id: uuid::Uuid, batches: usize, size: usize) {
    let (tx, rx) = mpsc::channel();
    for b in 0..batches {
        let tx = tx.clone();
        let batch = (0..size).map(|k| rec(id, (b * size + k) as u64)).collect();
        j.submit(batch, Box::new(move |r| tx.send(r.map(|_| ())).unwrap()))
            .unwrap();
    }
    for _ in 0..batches {
        rx.recv().unwrap().unwrap();
    }
}

#[test]
fn bulk_batches_across_rolls_and_reopens_stay_contiguous() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("j");
    let cfg = JournalConfig {
        segment_bytes: 256 * 1024,
        ..JournalConfig::default()
    };
    let id = uuid::Uuid::new_v4();
    let j = Journal::create(&dir, id, cfg.clone()).unwrap();
    fill(&j, id, 20, 512);
    j.close().unwrap();
    drop(j);
    for round in 0..3 {
        let (j, report) =
            Journal::open(&dir, cfg.clone()).unwrap_or_else(|e| panic!("round {round}: {e}"));
        assert!(report.torn_tail.is_none());
        fill(&j, id, 10, 512);
        for (expect, r) in (1..).zip(j.records_from(1).unwrap()) {
            assert_eq!(r.unwrap().seq, expect);
        }
        j.close().unwrap();
    }
    let (j, _) = Journal::open(&dir, cfg).unwrap();
    assert!(j.last_assigned_seq() > 20 * 512 + 30 * 512);
}

#[test]
fn a_close_whose_marker_rolls_the_segment_stays_clean() {
    // Fill segment 0 so that the next record still fits but the clean-shutdown marker does not:
    // the marker's own write rolls the segment, and the journal must still end at the marker.
    const SEG: u64 = 64 * 1024;
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("j");
    let cfg = JournalConfig {
        segment_bytes: SEG,
        ..JournalConfig::default()
    };
    let id = uuid::Uuid::new_v4();
    let j = Journal::create(&dir, id, cfg.clone()).unwrap();
    // Bytes used in segment 0: the end of its last frame (the file itself is preallocated).
    let used = || {
        let s = rho_journal::inspect::scan(&dir, true).unwrap();
        s.records
            .iter()
            .filter(|r| r.segment == 0)
            .map(|r| r.offset + u64::from(r.bytes))
            .max()
            .unwrap_or(72)
    };
    let base = rec(id, 0);
    // Frame bytes without payload: prefix 8 + fixed body 72 + the strings, padded to 8.
    let fixed = 8 + 72 + base.entity.kind.len() + base.kind.len() + base.principal.len();
    loop {
        let remaining = SEG - used();
        if remaining < 256 {
            // Exactly fill all but 8 bytes: the marker (well over 8 bytes) cannot fit.
            let mut last = rec(id, 1);
            last.payload = vec![b'x'; remaining as usize - 8 - fixed];
            j.append(vec![last]).unwrap();
            break;
        }
        j.append(vec![rec(id, 2)]).unwrap();
    }
    assert_eq!(SEG - used(), 8);
    j.close().unwrap();
    drop(j);
    let (j, report) = Journal::open(&dir, cfg).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.was_clean && report.torn_tail.is_none());
    j.close().unwrap();
}

#[test]
fn close_with_batches_still_queued_across_rolls_stays_clean() {
    // Batches are still queued when close() enqueues the clean-shutdown marker; draining them
    // rolls segments, and the marker must stay the last record.
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("j");
    let cfg = JournalConfig {
        segment_bytes: 64 * 1024,
        ..JournalConfig::default()
    };
    let id = uuid::Uuid::new_v4();
    let j = Journal::create(&dir, id, cfg.clone()).unwrap();
    for b in 0..40u64 {
        let batch = (0..256).map(|k| rec(id, b * 256 + k)).collect();
        j.submit(batch, Box::new(|r| assert!(r.is_ok()))).unwrap();
    }
    j.close().unwrap();
    drop(j);
    let (j, report) = Journal::open(&dir, cfg).unwrap_or_else(|e| panic!("{e}"));
    assert!(report.was_clean && report.torn_tail.is_none());
    j.close().unwrap();
}
