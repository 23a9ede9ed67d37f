//! Scanning and recovery: torn tails are truncated, everything else is refused as corruption.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::*;
use rand::{Rng, SeedableRng};
use rho_journal::inspect::{self, ProblemKind};
use rho_journal::{Journal, JournalConfig, JournalError, Record};
use uuid::Uuid;

/// A journal left as by a crash (dropped without close), one record per write.
fn crashed_journal(dir: &std::path::Path, n: u64, cfg: JournalConfig) -> Vec<Record> {
    let j = Journal::create(dir, Uuid::new_v4(), cfg).unwrap();
    for i in 0..n {
        j.append(vec![rec(i as u128 % 3, i, 40 + (i as usize % 17))])
            .unwrap();
    }
    drop(j);
    inspect::scan(dir, false).unwrap().records
}

fn is_corrupt<T>(r: &Result<T, JournalError>) -> bool {
    matches!(r, Err(JournalError::Corrupt { .. }))
}

#[test]
fn truncate_at_every_byte_of_the_last_two_records() {
    let (t, dir) = temp_journal();
    let recs = crashed_journal(&dir, 6, JournalConfig::default());
    let last = &recs[recs.len() - 1];
    let prev = &recs[recs.len() - 2];
    let seg = segment_path(&dir, last.segment);
    let end = last.offset + u64::from(last.bytes);
    assert_eq!(std::fs::metadata(&seg).unwrap().len(), end);
    for len in prev.offset..end {
        let work = t.path().join(format!("cut-{len}"));
        copy_dir(&dir, &work);
        cut(&segment_path(&work, last.segment), len);
        let (j, report) = Journal::open(&work, JournalConfig::default())
            .unwrap_or_else(|e| panic!("cut at {len}: {e}"));
        let kept = if len >= last.offset {
            recs.len() - 1
        } else {
            recs.len() - 2
        };
        let boundary = len == prev.offset || len == last.offset;
        match &report.torn_tail {
            None => assert!(boundary, "cut at {len} not reported as torn"),
            Some(tt) => {
                assert!(!boundary);
                let start = if len >= last.offset {
                    last.offset
                } else {
                    prev.offset
                };
                assert_eq!(
                    (tt.segment, tt.offset, tt.bytes),
                    (last.segment, start, len - start)
                );
            }
        }
        assert_eq!(report.last_seq, kept as u64);
        let got = all_records(&j);
        assert_eq!(
            &got[..kept],
            &recs[..kept],
            "earlier records intact after cut at {len}"
        );
        drop(j);
        std::fs::remove_dir_all(&work).unwrap();
    }
}

#[test]
fn random_bit_flips_are_never_silently_accepted() {
    let (t, dir) = temp_journal();
    let cfg = JournalConfig {
        segment_bytes: 2048,
        ..JournalConfig::default()
    };
    let recs = crashed_journal(&dir, 60, cfg.clone());
    let mark_seq = match inspect::scan(&dir, false).unwrap().watermark {
        Ok(w) => w.seq,
        Err(e) => panic!("{e}"),
    };
    let last = recs.last().unwrap().clone();
    let mut targets: Vec<std::path::PathBuf> = segment_files(&dir);
    targets.push(dir.join("watermark"));
    let mut rng = rand::rngs::StdRng::seed_from_u64(7);
    let (mut torn, mut corrupt) = (0, 0);
    for trial in 0..250 {
        // Bias half the trials towards the newest segment, where torn tails live.
        let file = if trial % 2 == 0 {
            segment_files(&dir).pop().unwrap()
        } else {
            targets[rng.gen_range(0..targets.len())].clone()
        };
        let len = std::fs::metadata(&file).unwrap().len();
        let at = rng.gen_range(0..len);
        let bit = rng.gen_range(0..8u8);
        let work = t.path().join(format!("flip-{trial}"));
        copy_dir(&dir, &work);
        let target = work.join(file.file_name().unwrap());
        flip(&target, at, bit);
        match Journal::open(&work, cfg.clone()) {
            Err(JournalError::Corrupt { .. }) => corrupt += 1,
            Err(e) => panic!("unexpected error {e}"),
            Ok((j, report)) => {
                let tt = report.torn_tail.unwrap_or_else(|| {
                    panic!("flip at {at} bit {bit} of {file:?} accepted silently")
                });
                assert_eq!(tt.segment, last.segment);
                assert!(at >= last.offset, "torn tail only in the last frame");
                assert_eq!(tt.offset, last.offset);
                assert!(last.seq > mark_seq, "torn tail only above the watermark");
                assert_eq!(&all_records(&j)[..recs.len() - 1], &recs[..recs.len() - 1]);
                torn += 1;
            }
        }
        std::fs::remove_dir_all(&work).unwrap();
    }
    assert!(torn > 0 && corrupt > 0, "torn {torn} corrupt {corrupt}");
}

#[test]
fn flip_in_last_record_after_clean_close_is_corruption() {
    let (t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    for i in 0..5 {
        j.append(vec![rec(1, i, 64)]).unwrap();
    }
    j.close().unwrap();
    drop(j);
    let recs = inspect::scan(&dir, false).unwrap().records;
    // The clean-shutdown marker and the last acknowledged user record.
    for r in [&recs[recs.len() - 1], &recs[recs.len() - 2]] {
        let work = t.path().join(format!("w{}", r.seq));
        copy_dir(&dir, &work);
        flip(&segment_path(&work, r.segment), r.offset + 20, 3);
        let res = Journal::open(&work, JournalConfig::default());
        assert!(is_corrupt(&res), "seq {}: {res:?}", r.seq);
        let scan = inspect::scan(&work, false).unwrap();
        assert_eq!(scan.problem.unwrap().kind, ProblemKind::Corruption);
    }
    // A clean journal cut at a frame boundary (the marker gone) is corruption too.
    let m = &recs[recs.len() - 1];
    cut(&segment_path(&dir, m.segment), m.offset);
    assert!(is_corrupt(&Journal::open(&dir, JournalConfig::default())));
}

#[test]
fn flip_in_last_record_after_crash_is_torn_unless_below_a_watermark() {
    let (t, dir) = temp_journal();
    let recs = crashed_journal(&dir, 5, JournalConfig::default());
    let last = recs.last().unwrap();
    let work = t.path().join("torn");
    copy_dir(&dir, &work);
    flip(&segment_path(&work, last.segment), last.offset + 30, 1);
    let (j, report) = Journal::open(&work, JournalConfig::default()).unwrap();
    assert_eq!(report.torn_tail.unwrap().offset, last.offset);
    assert_eq!(report.last_seq, last.seq - 1);
    drop(j);
    // The same flip below a snapshot seq is corruption.
    let (j, _) = Journal::open(&dir, JournalConfig::default()).unwrap();
    j.append(vec![rec(1, 100, 64)]).unwrap();
    let top = j.durable_seq();
    j.write_snapshot(top, b"state").unwrap();
    drop(j);
    let recs = inspect::scan(&dir, false).unwrap().records;
    let last = recs.last().unwrap();
    assert_eq!(last.seq, top);
    flip(&segment_path(&dir, last.segment), last.offset + 30, 1);
    assert!(is_corrupt(&Journal::open(&dir, JournalConfig::default())));
}

#[test]
fn flip_in_a_final_checkpoint_is_corruption() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), small_segments()).unwrap();
    let mut i = 0;
    while segment_files(&dir).len() < 2 {
        j.append(vec![rec(1, i, 200)]).unwrap();
        i += 1;
    }
    drop(j);
    let recs = inspect::scan(&dir, false).unwrap().records;
    let last = recs.last().unwrap();
    assert_eq!(last.kind, rho_journal::KIND_CHECKPOINT);
    flip(&segment_path(&dir, last.segment), last.offset + 12, 0);
    assert!(is_corrupt(&Journal::open(&dir, small_segments())));
}

#[test]
fn missing_middle_segment_and_seq_gap_are_corruption() {
    let (t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), small_segments()).unwrap();
    for i in 0..100 {
        j.append(vec![rec(1, i, 150)]).unwrap();
    }
    j.close().unwrap();
    drop(j);
    assert!(segment_files(&dir).len() >= 4);
    let work = t.path().join("missing");
    copy_dir(&dir, &work);
    std::fs::remove_file(segment_path(&work, 2)).unwrap();
    match Journal::open(&work, small_segments()) {
        Err(JournalError::Corrupt {
            segment, reason, ..
        }) => {
            assert_eq!(segment, 2, "{reason}");
        }
        other => panic!("{other:?}"),
    }
    // Drop the last frame of segment 1 exactly at a frame boundary: a seq gap.
    let work = t.path().join("gap");
    copy_dir(&dir, &work);
    let recs = inspect::scan(&work, false).unwrap().records;
    let last_of_1 = recs.iter().rfind(|r| r.segment == 1).unwrap();
    cut(&segment_path(&work, 1), last_of_1.offset);
    let err = Journal::open(&work, small_segments()).unwrap_err();
    let msg = err.to_string();
    assert!(is_corrupt::<()>(&Err(err)), "{msg}");
    assert!(msg.contains("rho journal inspect --verify"), "{msg}");
    // Damage in an older segment is corruption even after a crash.
    let work = t.path().join("older");
    copy_dir(&dir, &work);
    let first_of_1 = recs.iter().find(|r| r.segment == 1).unwrap();
    flip(&segment_path(&work, 1), first_of_1.offset + 40, 2);
    assert!(is_corrupt(&Journal::open(&work, small_segments())));
}

#[test]
fn journal_truncated_below_a_snapshot_is_corruption() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    for i in 0..10 {
        j.append(vec![rec(1, i, 64)]).unwrap();
    }
    j.write_snapshot(8, b"eight").unwrap();
    drop(j);
    let recs = inspect::scan(&dir, false).unwrap().records;
    let r7 = recs.iter().find(|r| r.seq == 7).unwrap();
    cut(&segment_path(&dir, r7.segment), r7.offset);
    let res = Journal::open(&dir, JournalConfig::default());
    assert!(is_corrupt(&res), "{res:?}");
}

#[test]
fn open_and_inspect_never_modify_a_corrupt_journal() {
    let (_t, dir) = temp_journal();
    let recs = crashed_journal(&dir, 5, JournalConfig::default());
    let r2 = &recs[2];
    flip(&segment_path(&dir, r2.segment), r2.offset + 33, 5);
    let before: Vec<_> = segment_files(&dir)
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    let wm = std::fs::read(dir.join("watermark")).unwrap();
    assert!(is_corrupt(&Journal::open(&dir, JournalConfig::default())));
    let scan = inspect::scan(&dir, true).unwrap();
    let p = scan.problem.unwrap();
    assert_eq!(
        (p.kind, p.seq, p.offset),
        (ProblemKind::Corruption, r2.seq, r2.offset)
    );
    let after: Vec<_> = segment_files(&dir)
        .iter()
        .map(|p| std::fs::read(p).unwrap())
        .collect();
    assert_eq!(before, after);
    assert_eq!(wm, std::fs::read(dir.join("watermark")).unwrap());
}

#[test]
fn live_writer_incomplete_tail_is_in_flight() {
    let (_t, dir) = temp_journal();
    let recs = crashed_journal(&dir, 3, JournalConfig::default());
    let last = recs.last().unwrap();
    cut(&segment_path(&dir, last.segment), last.offset + 10);
    let live = inspect::scan(&dir, true).unwrap();
    assert_eq!(live.problem.unwrap().kind, ProblemKind::InFlightTail);
    let dead = inspect::scan(&dir, false).unwrap();
    let p = dead.problem.unwrap();
    assert_eq!(
        (p.kind, p.bytes, p.seq),
        (ProblemKind::TornTail, 10, last.seq)
    );
    assert_eq!(dead.records.len(), recs.len() - 1);
}
