//! Basic journal behaviour: create, append, reopen, replay, group commit, roll, snapshots.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use crate::support::*;
use rho_journal::{
    Journal, JournalConfig, JournalError, KIND_CHECKPOINT, KIND_CLEAN_SHUTDOWN, KIND_OPENED,
};
use uuid::Uuid;

#[test]
fn create_append_close_reopen_replay() {
    let (_t, dir) = temp_journal();
    let pid = Uuid::new_v4();
    let j = Journal::create(&dir, pid, JournalConfig::default()).unwrap();
    assert_eq!(j.project_id(), pid);
    assert_eq!(j.epoch(), 1);
    assert_eq!(j.durable_seq(), 1, "journal.opened is seq 1");
    let a = j
        .append(vec![rec(1, 1, 64), rec(1, 2, 64), rec(2, 3, 64)])
        .unwrap();
    assert_eq!((a.first_seq, a.last_seq), (2, 4));
    assert_eq!(a.entity_seqs, vec![1, 2, 1]);
    assert_eq!(j.durable_seq(), 4);
    assert_eq!(j.last_assigned_seq(), 4);
    j.close().unwrap();
    j.close().unwrap();
    assert!(matches!(
        j.append(vec![rec(1, 9, 8)]),
        Err(JournalError::Closed)
    ));
    drop(j);

    assert!(matches!(
        Journal::create(&dir, pid, JournalConfig::default()),
        Err(JournalError::AlreadyExists)
    ));
    let (j, report) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert!(report.was_clean);
    assert_eq!(report.last_seq, 5);
    assert_eq!(report.epoch, 2);
    assert!(report.torn_tail.is_none());
    let recs = all_records(&j);
    let kinds: Vec<&str> = recs.iter().map(|r| r.kind.as_str()).collect();
    assert_eq!(
        kinds,
        [
            KIND_OPENED,
            "doc.edited",
            "doc.edited",
            "doc.edited",
            KIND_CLEAN_SHUTDOWN,
            KIND_OPENED
        ]
    );
    assert!(recs[0].is_internal() && !recs[1].is_internal());
    assert_eq!(recs[2].payload, rec(1, 2, 64).payload);
    assert_eq!(recs[2].change_id.as_deref(), Some("c-2"));
    assert_eq!(recs[3].entity_seq, 1);
    assert_eq!(recs[5].epoch, 2);
    // Entity seqs continue after reopen.
    let a = j.append(vec![rec(1, 4, 8)]).unwrap();
    assert_eq!(a.entity_seqs, vec![3]);
    let from5: Vec<u64> = j.records_from(5).unwrap().map(|r| r.unwrap().seq).collect();
    assert_eq!(from5, vec![5, 6, 7]);
    assert_eq!(j.records_from(100).unwrap().count(), 0);
    drop(j); // no clean close
    let (_j, report) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert!(!report.was_clean);
    assert_eq!(report.last_seq, 7);
}

#[test]
fn open_missing_creates_nothing() {
    let (t, dir) = temp_journal();
    assert!(matches!(
        Journal::open(&dir, JournalConfig::default()),
        Err(JournalError::NotFound { .. })
    ));
    assert!(matches!(
        rho_journal::inspect::scan(&dir, false),
        Err(JournalError::NotFound { .. })
    ));
    assert!(!t.path().join("project").exists());
}

#[test]
fn invalid_records_are_refused() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    let mut r = rec(1, 1, 8);
    r.entity.kind = "has space".into();
    assert!(matches!(
        j.append(vec![r]),
        Err(JournalError::Invalid { .. })
    ));
    let mut r = rec(1, 1, 8);
    r.entity.kind = "journal".into();
    assert!(matches!(
        j.append(vec![r]),
        Err(JournalError::Invalid { .. })
    ));
    let r = rec(1, 1, 5 * 1024 * 1024);
    assert!(matches!(
        j.append(vec![r]),
        Err(JournalError::RecordTooLarge { .. })
    ));
    assert!(matches!(
        j.append(vec![]),
        Err(JournalError::Invalid { .. })
    ));
    // Exactly 1 MiB payload plus framing fits.
    j.append(vec![rec(1, 1, 1024 * 1024)]).unwrap();
    assert_eq!(j.last_assigned_seq(), 2);
}

/// Many callers blocked in `append` at once: every one is woken with its own durable seq (a group's
/// callers wake each other as a tree; a lost wake-up would leave some asleep past the deadline).
#[test]
fn many_blocked_appenders_all_return() {
    let (_t, dir) = temp_journal();
    let j = Arc::new(Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap());
    let (tx, rx) = std::sync::mpsc::channel();
    for t in 0..32u64 {
        let (j, tx) = (j.clone(), tx.clone());
        std::thread::spawn(move || {
            let mut seqs = Vec::new();
            for i in 0..40u64 {
                let a = j
                    .append(vec![rec(u128::from(t), t * 1000 + i, 64)])
                    .unwrap();
                assert!(j.durable_seq() >= a.last_seq, "append returns once durable");
                seqs.push(a.last_seq);
            }
            tx.send(seqs).unwrap();
        });
    }
    drop(tx);
    let mut all = Vec::new();
    for _ in 0..32 {
        let seqs = rx
            .recv_timeout(std::time::Duration::from_secs(120))
            .expect("every blocked appender returns");
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
        all.extend(seqs);
    }
    all.sort_unstable();
    all.dedup();
    assert_eq!(all.len(), 32 * 40, "each append has its own seq");
    j.close().unwrap();
    let recs = reopen_records(&dir);
    assert_eq!(recs.iter().filter(|r| !r.is_internal()).count(), 32 * 40);
}

#[test]
fn group_commit_many_threads() {
    let (_t, dir) = temp_journal();
    let j = Arc::new(Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap());
    let done_calls = Arc::new(AtomicUsize::new(0));
    let acked = Arc::new(Mutex::new(Vec::new()));
    let max_seen = Arc::new(AtomicU64::new(0));
    let threads: Vec<_> = (0..8u64)
        .map(|t| {
            let (j, done_calls, acked, max_seen) = (
                j.clone(),
                done_calls.clone(),
                acked.clone(),
                max_seen.clone(),
            );
            std::thread::spawn(move || {
                for i in 0..100u64 {
                    let tag = t * 1000 + i;
                    let (dc, ac, ms, jj) = (
                        done_calls.clone(),
                        acked.clone(),
                        max_seen.clone(),
                        j.clone(),
                    );
                    let n = 1 + (i % 3) as usize;
                    let recs = (0..n)
                        .map(|k| rec(t as u128, tag * 10 + k as u64, 64))
                        .collect();
                    let a = j
                        .submit(
                            recs,
                            Box::new(move |r| {
                                let last = r.expect("durable");
                                dc.fetch_add(1, Ordering::SeqCst);
                                let d = jj.durable_seq();
                                assert!(d >= last, "durable_seq covers an acked batch");
                                let prev = ms.fetch_max(last, Ordering::SeqCst);
                                assert!(last > prev, "dones complete in seq order");
                                ac.lock().unwrap().push(last);
                            }),
                        )
                        .unwrap();
                    assert_eq!(a.last_seq - a.first_seq + 1, n as u64);
                    if i % 10 == 0 {
                        j.append(vec![rec(99, tag, 8)]).unwrap();
                    }
                }
            })
        })
        .collect();
    // durable_seq never goes backwards while the writers run.
    let sampler = {
        let j = j.clone();
        std::thread::spawn(move || {
            let mut prev = 0;
            for _ in 0..20_000 {
                let d = j.durable_seq();
                assert!(d >= prev, "durable_seq went from {prev} to {d}");
                prev = d;
            }
        })
    };
    for t in threads {
        t.join().unwrap();
    }
    sampler.join().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let last = j.last_assigned_seq();
    j.when_durable(last, Box::new(move |r| tx.send(r).unwrap()));
    rx.recv().unwrap().unwrap();
    assert_eq!(done_calls.load(Ordering::SeqCst), 800);
    let recs = all_records(&j);
    assert_eq!(recs.len() as u64, last);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.seq, i as u64 + 1);
    }
    // Entity seqs contiguous per entity.
    let mut per: std::collections::HashMap<_, u64> = Default::default();
    for r in &recs {
        let e = per.entry(r.entity.clone()).or_default();
        *e += 1;
        assert_eq!(r.entity_seq, *e);
    }
    let acked = acked.lock().unwrap();
    assert_eq!(acked.iter().collect::<HashSet<_>>().len(), 800);
    j.close().unwrap();
}

#[test]
fn when_durable_semantics() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let tx2 = tx.clone();
    j.when_durable(1, Box::new(move |r| tx2.send(r.is_ok()).unwrap()));
    assert!(rx.recv().unwrap());
    let tx3 = tx.clone();
    j.when_durable(50, Box::new(move |r| tx3.send(r.is_ok()).unwrap()));
    assert!(!rx.recv().unwrap(), "unassigned seq is invalid");
    let a = j.submit(vec![rec(1, 1, 8)], Box::new(|_| {})).unwrap();
    j.when_durable(a.last_seq, Box::new(move |r| tx.send(r.is_ok()).unwrap()));
    assert!(rx.recv().unwrap());
}

#[test]
fn segment_roll_and_reopen_across_many_segments() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), small_segments()).unwrap();
    for i in 0..300u64 {
        j.append(vec![rec(i as u128 % 5, i, 100)]).unwrap();
    }
    let segs = segment_files(&dir);
    assert!(segs.len() > 10, "rolled into {} segments", segs.len());
    let recs = all_records(&j);
    assert!(recs.iter().any(|r| r.kind == KIND_CHECKPOINT));
    j.close().unwrap();
    drop(j);
    let (j, report) = Journal::open(&dir, small_segments()).unwrap();
    assert_eq!(report.segments, segs.len());
    let users = user_records(&j);
    assert_eq!(users.len(), 300);
    for (i, r) in users.iter().enumerate() {
        assert_eq!(r.payload, rec(0, i as u64, 100).payload);
    }
    // records_from in the middle of a later segment.
    let mid = recs[recs.len() / 2].seq;
    let got: Vec<u64> = j
        .records_from(mid)
        .unwrap()
        .map(|r| r.unwrap().seq)
        .collect();
    assert_eq!(got.first(), Some(&mid));
    assert_eq!(*got.last().unwrap(), j.durable_seq());
}

#[test]
fn snapshots_write_load_and_fallback() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    assert_eq!(j.load_snapshot().unwrap(), None);
    for i in 0..10 {
        j.append(vec![rec(1, i, 8)]).unwrap();
    }
    assert!(matches!(
        j.write_snapshot(100, b"x"),
        Err(JournalError::Invalid { .. })
    ));
    j.write_snapshot(5, b"five").unwrap();
    j.write_snapshot(9, b"nine").unwrap();
    assert_eq!(j.load_snapshot().unwrap(), Some((9, b"nine".to_vec())));
    // Corrupt the newest: falls back to the older one.
    let p = dir.join("snapshots").join(format!("{:020}.snap", 9));
    let mut b = std::fs::read(&p).unwrap();
    let n = b.len();
    b[n / 2] ^= 0xff;
    std::fs::write(&p, b).unwrap();
    assert_eq!(j.load_snapshot().unwrap(), Some((5, b"five".to_vec())));
    drop(j);
    let (j, _) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert_eq!(j.load_snapshot().unwrap(), Some((5, b"five".to_vec())));
    let scan = rho_journal::inspect::scan(&dir, false).unwrap();
    assert_eq!(scan.snapshots.len(), 2);
    assert!(scan.snapshots[1].problem.is_some());
}

#[test]
fn lease_in_process() {
    let t = tempfile::tempdir().unwrap();
    let p = t.path().join("lease");
    assert!(!rho_journal::WriterLease::is_held(&p));
    assert!(!p.exists(), "is_held never creates the file");
    let l = rho_journal::WriterLease::acquire(&p, "pid 1 at here").unwrap();
    assert!(rho_journal::WriterLease::is_held(&p));
    assert_eq!(std::fs::read_to_string(&p).unwrap(), "pid 1 at here");
    drop(l);
    assert!(!rho_journal::WriterLease::is_held(&p));
}

#[test]
fn callbacks_may_drop_the_last_handle_or_panic() {
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    // A panicking callback does not kill the writer.
    j.submit(
        vec![rec(1, 0, 8)],
        Box::new(|_| panic!("callback panics on purpose")),
    )
    .unwrap();
    j.append(vec![rec(1, 1, 8)]).unwrap();
    // Blocking calls from a callback are refused instead of deadlocking.
    let j = Arc::new(j);
    let (tx, rx) = std::sync::mpsc::channel();
    let jj = j.clone();
    j.submit(
        vec![rec(1, 2, 8)],
        Box::new(move |_| {
            let r = jj.append(vec![rec(1, 3, 8)]);
            tx.send(matches!(r, Err(JournalError::Invalid { .. })))
                .unwrap();
        }),
    )
    .unwrap();
    assert!(rx.recv().unwrap());
    j.close().unwrap();
    drop(j);
    // The last handle dropped inside a callback on the writer thread.
    for i in 0..20 {
        let (j, _) = Journal::open(&dir, JournalConfig::default()).unwrap();
        let j = Arc::new(j);
        let jj = j.clone();
        let (tx, rx) = std::sync::mpsc::channel();
        j.submit(
            vec![rec(1, 10 + i, 8)],
            Box::new(move |_| {
                drop(jj);
                tx.send(()).unwrap();
            }),
        )
        .unwrap();
        drop(j);
        // The journal lives until its callback dropped the last handle.
        rx.recv().unwrap();
    }
    let (j, _) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert_eq!(user_records(&j).len(), 23);
}
