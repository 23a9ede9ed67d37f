//! The one support module of the journal's test binary: temp journals, record builders, checks.
#![allow(dead_code, unreachable_pub)]

pub mod child;

use std::path::{Path, PathBuf};
use std::process::Command;

use rho_journal::{EntityRef, Journal, JournalConfig, NewRecord, Record};
use uuid::Uuid;

/// A fresh temp dir and the journal path `<tmp>/project/.rho/journal` inside it.
pub fn temp_journal() -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().expect("tempdir");
    let dir = t.path().join("project").join(".rho").join("journal");
    (t, dir)
}

pub fn entity(n: u128) -> EntityRef {
    EntityRef {
        kind: "doc".to_string(),
        id: Uuid::from_u128(n),
    }
}

/// A record whose payload encodes `tag` so tests can check exact payloads.
pub fn rec(entity_n: u128, tag: u64, payload_len: usize) -> NewRecord {
    let mut payload = tag.to_le_bytes().to_vec();
    payload.resize(payload_len.max(8), (tag % 251) as u8);
    NewRecord {
        entity: entity(entity_n),
        time_ms: 1_700_000_000_000 + tag as i64,
        principal: "user:test".to_string(),
        change_id: Some(format!("c-{tag}")),
        kind: "doc.edited".to_string(),
        codec: 1,
        payload,
    }
}

pub fn small_segments() -> JournalConfig {
    JournalConfig {
        segment_bytes: 4096,
        ..JournalConfig::default()
    }
}

/// All durable records of an open journal.
pub fn all_records(j: &Journal) -> Vec<Record> {
    j.records_from(1)
        .expect("records_from")
        .collect::<Result<Vec<_>, _>>()
        .expect("read records")
}

/// Non-internal records.
pub fn user_records(j: &Journal) -> Vec<Record> {
    all_records(j)
        .into_iter()
        .filter(|r| !r.is_internal())
        .collect()
}

/// Segment files of a journal, sorted.
pub fn segment_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("read_dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "seg"))
        .collect();
    v.sort();
    v
}

/// Opens, asserts seqs contiguous from 1, closes; returns the records.
pub fn reopen_records(dir: &Path) -> Vec<Record> {
    let (j, _) = Journal::open(dir, JournalConfig::default()).expect("reopen");
    let recs = all_records(&j);
    for (i, r) in recs.iter().enumerate() {
        assert_eq!(r.seq, i as u64 + 1, "seqs contiguous");
    }
    j.close().expect("close");
    recs
}

/// Copies a journal directory (segments, watermark, snapshots) to `to`.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read_dir") {
        let e = e.expect("entry");
        let target = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).expect("copy");
        }
    }
}

/// Path of the segment file with number `n`.
pub fn segment_path(dir: &Path, n: u64) -> PathBuf {
    segment_files(dir)
        .into_iter()
        .find(|p| {
            p.file_name()
                .and_then(|s| s.to_str())
                .is_some_and(|s| s.starts_with(&format!("{n:020}-")))
        })
        .expect("segment exists")
}

/// Flips bit `bit` of byte `at` of `path`.
pub fn flip(path: &Path, at: u64, bit: u8) {
    let mut b = std::fs::read(path).expect("read");
    b[at as usize] ^= 1 << bit;
    std::fs::write(path, b).expect("write");
}

/// Truncates `path` to `len` bytes.
pub fn cut(path: &Path, len: u64) {
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .expect("open");
    f.set_len(len).expect("set_len");
}

/// Env var naming the one test a child process of this binary runs (see [`in_own_process`]).
const ISOLATED_ENV: &str = "RHO_JOURNAL_TEST_ISOLATED";

/// Runs test `name` (its full path, e.g. `failpoints::fsync_failure_poisons`) alone in a child
/// process of this binary, for a test that configures process-global fail points, which would
/// reach the journals of the tests running beside it. Answers `true` in the child (run the
/// body there) and `false` in the parent, after the child passed; a failing child fails the
/// parent with the child's output.
pub fn in_own_process(name: &str) -> bool {
    if std::env::var_os(ISOLATED_ENV).is_some_and(|v| v == name) {
        return true;
    }
    let out = Command::new(std::env::current_exe().expect("current_exe"))
        .args(["--exact", name, "--test-threads=1"])
        .env(ISOLATED_ENV, name)
        .output()
        .expect("the test binary runs itself");
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    // Indented, so that a summing of `test result:` lines never counts the child's.
    let said: String = said.lines().map(|l| format!("  | {l}\n")).collect();
    assert!(
        out.status.success(),
        "{name} failed in its own process:\n{said}"
    );
    assert!(
        said.contains("test result: ok. 1 passed"),
        "{name} did not run in its own process:\n{said}"
    );
    false
}
