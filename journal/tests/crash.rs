//! Crash at each named fail point (feature `failpoints`): a self-exec child aborts there via
//! `FAILPOINTS=<point>=...return(abort)`; the journal must reopen with every acknowledged record.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(feature = "failpoints")]

mod common;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::time::Duration;

use common::child::*;
use common::*;
use rho_journal::{Journal, JournalConfig};
use uuid::Uuid;

fn crash_at(point: &str, skip: u32) {
    if let Some(dir) = std::env::var_os(WRITER_ENV) {
        let _scenario = fail::FailScenario::setup();
        writer_child(Path::new(&dir));
    }
    let (_t, dir) = temp_journal();
    Journal::create(&dir, Uuid::new_v4(), JournalConfig::default())
        .unwrap()
        .close()
        .unwrap();
    let mut acked = BTreeMap::new();
    let test = format!("crash_{}", point.trim_start_matches("journal::"));
    let env = [
        ("FAILPOINTS", format!("{point}={skip}*off->return(abort)")),
        (SEGMENT_ENV, (16 * 1024).to_string()),
        (SNAPSHOT_ENV, "1".to_string()),
    ];
    let mut child = spawn_writer(&test, &dir, &env);
    let reader = drain_stdout(&mut child);
    let mut status = None;
    for _ in 0..2000 {
        if let Ok(Some(s)) = child.try_wait() {
            status = Some(s);
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        panic!("{point}: child did not crash within 10 s");
    };
    let out = reader.join().unwrap();
    assert_eq!(
        status.signal(),
        Some(6),
        "{point}: child should abort, got {status:?}"
    );
    parse_acks(&out, &mut acked).unwrap();
    assert!(
        !acked.is_empty(),
        "{point}: nothing was acknowledged before the crash"
    );
    check_acked(&dir, &acked).unwrap_or_else(|e| panic!("{point}: {e}"));
    let (j, report) = Journal::open(&dir, JournalConfig::default())
        .unwrap_or_else(|e| panic!("{point}: reopen failed: {e}"));
    assert!(report.last_seq >= acked.keys().next_back().copied().unwrap_or(0));
    drop(j);
    check_acked(&dir, &acked).unwrap();
}

#[test]
fn crash_before_write() {
    crash_at("journal::before_write", 40);
}

#[test]
fn crash_after_write_before_sync() {
    crash_at("journal::after_write_before_sync", 40);
}

#[test]
fn crash_after_sync_before_ack() {
    crash_at("journal::after_sync_before_ack", 40);
}

#[test]
fn crash_after_segment_create_before_dir_sync() {
    crash_at("journal::after_segment_create_before_dir_sync", 2);
}

#[test]
fn crash_after_snapshot_write_before_rename() {
    crash_at("journal::after_snapshot_write_before_rename", 2);
}
