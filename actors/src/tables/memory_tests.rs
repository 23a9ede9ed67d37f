//! A test of the cold table read's memory peak: the service's read of a large CSV, measured alone in a child process, stays within twice the file's bytes.
//!
//! The test runs itself again as a child process that does nothing but the read, so the
//! process's peak resident memory (`VmHWM`) is the read's: the parent writes the file, the
//! child notes its resident memory, reads and validates the table (`read_version`, digest
//! included), and writes its peak to a file beside the table. Issue 13 asks for the peak within 2x the file's bytes.

use super::load::{read_version, TableBounds};
use super::schema::Schema;
use crate::files::decl::TableDecl;
use crate::files::VersionFacts;
use std::fmt::Write;

/// Set in the child: the folder holding `t.csv` and its digest, `folder|digest`.
const CHILD: &str = "RHO_TABLE_PEAK_CHILD";
/// Rows of the test table (about 16 MB of CSV, as in the benchmark).
const ROWS: usize = 100_000;
const NAME: &str = "tables::memory_tests::the_cold_read_peak_stays_within_twice_the_file";

/// The declaration of the benchmark's shape: a key, 7 numbers, 6 integers, 6 strings.
fn decl() -> TableDecl {
    let mut cols = vec![serde_json::json!({"name": "id", "type": "string"})];
    for i in 0..19 {
        let ty = ["number", "integer", "string"][i % 3];
        cols.push(serde_json::json!({"name": format!("c{i}"), "type": ty, "missing": ["NA"]}));
    }
    serde_json::from_value(serde_json::json!({
        "format": "csv",
        "columns": cols,
        "key": {"column": "id", "namespace": "row"},
    }))
    .unwrap()
}

/// The benchmark's table (`bench/src/table.rs`): pseudo-random numbers, integers and words.
fn text(rows: usize) -> String {
    let mut s = String::from("id");
    for i in 0..19 {
        write!(s, ",c{i}").unwrap();
    }
    s.push('\n');
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for r in 0..rows {
        write!(s, "k{r}").unwrap();
        for i in 0..19 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let v = x % 100_000;
            match i % 3 {
                _ if v % 50 == 0 => s.push_str(",NA"),
                0 => write!(s, ",{v}.{:03}", x % 1000).unwrap(),
                1 => write!(s, ",{}", v as i64 - 50_000).unwrap(),
                _ => write!(s, ",word{}", v % 997).unwrap(),
            }
        }
        s.push('\n');
    }
    s
}

/// `VmRSS` and `VmHWM` of this process, in bytes.
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let field = |name: &str| {
        let line = status.lines().find(|l| l.starts_with(name)).unwrap();
        line.split_whitespace()
            .nth(1)
            .unwrap()
            .parse::<u64>()
            .unwrap()
            * 1024
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// The child's part: read the table once and write the resident memory before and the peak,
/// with the file's size, to `peak` in the folder (`before peak file`).
fn child(spec: &str) {
    let (dir, sha256) = spec.split_once('|').unwrap();
    let dir = std::path::Path::new(dir);
    let bytes = std::fs::metadata(dir.join("t.csv")).unwrap().len();
    let facts = VersionFacts {
        kind: "table".into(),
        format: "csv".into(),
        bytes,
        sha256: sha256.into(),
        captured: false,
        partial: false,
        operation_id: None,
        table: Some(decl()),
        media: None,
    };
    let schema = Schema::from_decl(&decl()).unwrap();
    let bounds = TableBounds {
        max_file_bytes: 64 << 20,
        max_rows: 1_000_000,
    };
    let (before, _) = memory();
    let table = read_version(dir, "t.csv", &facts, &schema, bounds).unwrap();
    let (_, peak) = memory();
    assert_eq!(table.rows, ROWS);
    std::fs::write(dir.join("peak"), format!("{before} {peak} {bytes}")).unwrap();
}

#[test]
fn the_cold_read_peak_stays_within_twice_the_file() {
    if let Ok(spec) = std::env::var(CHILD) {
        return child(&spec);
    }
    let dir = tempfile::tempdir().unwrap();
    let t = text(ROWS);
    std::fs::write(dir.path().join("t.csv"), &t).unwrap();
    let spec = format!(
        "{}|{}",
        dir.path().display(),
        rho_plumbing::sha256_hex(t.as_bytes())
    );
    let file = t.len() as u64;
    drop(t);
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([NAME, "--exact", "--test-threads=1"])
        .env(CHILD, spec)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "child failed: {stdout}");
    let report = std::fs::read_to_string(dir.path().join("peak")).unwrap();
    let nums: Vec<u64> = report
        .split_whitespace()
        .map(|n| n.parse().unwrap())
        .collect();
    let [before, peak, read] = nums[..] else {
        panic!("the child's report is {report:?}");
    };
    assert_eq!(read, file);
    assert!(
        file > 10 << 20,
        "a file of {file} bytes is too small to measure"
    );
    let grew = peak.saturating_sub(before);
    assert!(
        grew <= 2 * file,
        "the cold read's peak grew by {grew} bytes for a {file}-byte file (at most 2x)"
    );
}
