//! Fault injection in-process (feature `failpoints`): ENOSPC, fsync failure, failed truncate.
//!
//! Fail points are process-global, so each test runs alone in a child process of the test
//! binary ([`in_own_process`]); the other journal tests beside it never see them.

use std::sync::mpsc;
use std::time::Duration;

use crate::support::*;
use fail::FailScenario;
use rho_journal::{Journal, JournalConfig, JournalError};
use uuid::Uuid;

type Results = mpsc::Receiver<Result<u64, JournalError>>;

/// Submits `n` batches while the writer is paused in `journal::before_write`.
fn submit_batches(j: &Journal, n: u64, tag: u64) -> Results {
    let (tx, rx) = mpsc::channel();
    for i in 0..n {
        let tx = tx.clone();
        j.submit(
            vec![rec(1, tag + i, 64), rec(2, tag + i, 64)],
            Box::new(move |r| tx.send(r).unwrap()),
        )
        .unwrap();
    }
    rx
}

fn collect(rx: Results, n: usize) -> Vec<Result<u64, JournalError>> {
    (0..n)
        .map(|_| {
            rx.recv_timeout(Duration::from_secs(10))
                .expect("done called")
        })
        .collect()
}

#[test]
fn enospc_acknowledges_nothing_and_resumes_after_resume() {
    if !in_own_process("failpoints::enospc_acknowledges_nothing_and_resumes_after_resume") {
        return;
    }
    let scenario = FailScenario::setup();
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    j.append(vec![rec(1, 0, 64)]).unwrap();
    let durable = j.durable_seq();
    let seg = segment_files(&dir).pop().unwrap();
    let size = std::fs::metadata(&seg).unwrap().len();
    fail::cfg("journal::before_write", "1*sleep(150)").unwrap();
    fail::cfg("journal::write_error", "return").unwrap();
    let rx = submit_batches(&j, 5, 100);
    let results = collect(rx, 5);
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Err(JournalError::WriteFailed { .. }))),
        "{results:?}"
    );
    assert_eq!(j.durable_seq(), durable);
    assert_eq!(j.last_assigned_seq(), durable, "seqs released");
    assert_eq!(
        std::fs::metadata(&seg).unwrap().len(),
        size,
        "truncated back"
    );
    assert!(matches!(
        j.append(vec![rec(1, 1, 8)]),
        Err(JournalError::NeedsRebuild)
    ));
    let (tx, wrx) = mpsc::channel();
    j.when_durable(durable + 1, Box::new(move |r| tx.send(r).unwrap()));
    assert!(wrx.recv().unwrap().is_err());
    assert!(j.poisoned().is_none());
    // Space returns.
    fail::remove("journal::write_error");
    j.resume().unwrap();
    let a = j.append(vec![rec(1, 7, 64)]).unwrap();
    assert_eq!(a.first_seq, durable + 1);
    assert_eq!(a.entity_seqs, vec![2], "entity seqs restored");
    j.close().unwrap();
    drop(j);
    let users: Vec<_> = reopen_records(&dir)
        .into_iter()
        .filter(|r| !r.is_internal())
        .collect();
    assert_eq!(users.len(), 2);
    assert_eq!(users[1].payload, rec(1, 7, 64).payload);
    scenario.teardown();
}

#[test]
fn fsync_failure_poisons() {
    if !in_own_process("failpoints::fsync_failure_poisons") {
        return;
    }
    let scenario = FailScenario::setup();
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    j.append(vec![rec(1, 0, 64)]).unwrap();
    let durable = j.durable_seq();
    fail::cfg("journal::before_write", "1*sleep(150)").unwrap();
    fail::cfg("journal::sync_error", "return").unwrap();
    let rx = submit_batches(&j, 5, 100);
    let results = collect(rx, 5);
    assert!(
        results
            .iter()
            .all(|r| matches!(r, Err(JournalError::Poisoned { .. }))),
        "{results:?}"
    );
    fail::remove("journal::sync_error");
    assert_eq!(j.durable_seq(), durable, "nothing acknowledged");
    assert!(j.poisoned().is_some());
    assert!(matches!(
        j.append(vec![rec(1, 1, 8)]),
        Err(JournalError::Poisoned { .. })
    ));
    assert!(matches!(j.resume(), Err(JournalError::Poisoned { .. })));
    assert!(matches!(j.close(), Err(JournalError::Poisoned { .. })));
    drop(j);
    // Reopen from disk works; the acknowledged record is there.
    let recs = reopen_records(&dir);
    assert!(recs.iter().any(|r| r.payload == rec(1, 0, 64).payload));
    scenario.teardown();
}

#[test]
fn failed_truncate_poisons() {
    if !in_own_process("failpoints::failed_truncate_poisons") {
        return;
    }
    let scenario = FailScenario::setup();
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap();
    fail::cfg("journal::write_error", "return").unwrap();
    fail::cfg("journal::truncate_error", "return").unwrap();
    let r = j.append(vec![rec(1, 0, 64)]);
    assert!(matches!(r, Err(JournalError::Poisoned { .. })), "{r:?}");
    assert!(j.poisoned().is_some());
    fail::remove("journal::write_error");
    fail::remove("journal::truncate_error");
    drop(j);
    // The half-written frame is a torn tail.
    let (_j, report) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert!(report.torn_tail.is_some());
    scenario.teardown();
}

#[test]
fn enospc_during_close_and_after_roll() {
    if !in_own_process("failpoints::enospc_during_close_and_after_roll") {
        return;
    }
    let scenario = FailScenario::setup();
    let (_t, dir) = temp_journal();
    let j = Journal::create(&dir, Uuid::new_v4(), small_segments()).unwrap();
    for i in 0..40 {
        j.append(vec![rec(1, i, 100)]).unwrap();
    }
    fail::cfg("journal::write_error", "return").unwrap();
    assert!(matches!(
        j.append(vec![rec(1, 99, 100)]),
        Err(JournalError::WriteFailed { .. })
    ));
    assert!(matches!(j.close(), Err(JournalError::WriteFailed { .. })));
    fail::remove("journal::write_error");
    drop(j);
    let users: Vec<_> = reopen_records(&dir)
        .into_iter()
        .filter(|r| !r.is_internal())
        .collect();
    assert_eq!(users.len(), 40);
    scenario.teardown();
}

/// A caller leading the write goes on to write a batch queued while its own write was in
/// progress (on its own thread, no hand-off to the writer thread), then returns.
#[test]
fn a_leading_caller_writes_what_was_queued_behind_it() {
    if !in_own_process("failpoints::a_leading_caller_writes_what_was_queued_behind_it") {
        return;
    }
    let scenario = FailScenario::setup();
    let (_t, dir) = temp_journal();
    let j = std::sync::Arc::new(
        Journal::create(&dir, Uuid::new_v4(), JournalConfig::default()).unwrap(),
    );
    let before = j.last_assigned_seq();
    // The leader's write pauses before its sync; meanwhile another batch is queued.
    fail::cfg("journal::after_write_before_sync", "1*sleep(300)").unwrap();
    let leader = {
        let j = j.clone();
        std::thread::spawn(move || {
            j.append(vec![rec(1, 1, 64)]).unwrap();
            std::thread::current().id()
        })
    };
    while j.last_assigned_seq() == before {
        std::thread::yield_now();
    }
    // The leader has taken its group; this batch comes after it.
    std::thread::sleep(Duration::from_millis(100));
    let (tx, rx) = mpsc::channel();
    j.submit(
        vec![rec(2, 2, 64)],
        Box::new(move |r| tx.send((r, std::thread::current().id())).unwrap()),
    )
    .unwrap();
    let leader = leader.join().unwrap();
    let (result, wrote_it) = rx.recv_timeout(Duration::from_secs(10)).unwrap();
    assert_eq!(result.unwrap(), before + 2);
    assert_eq!(
        wrote_it, leader,
        "the leading caller wrote the queued batch"
    );
    j.close().unwrap();
    scenario.teardown();
}
