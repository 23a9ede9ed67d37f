//! Regression: bulk batches submitted without waiting, across segment rolls and reopens.

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
        let mut expect = 1;
        for r in j.records_from(1).unwrap() {
            assert_eq!(r.unwrap().seq, expect);
            expect += 1;
        }
        j.close().unwrap();
    }
    let (j, _) = Journal::open(&dir, cfg).unwrap();
    assert!(j.last_assigned_seq() > 20 * 512 + 30 * 512);
}
