//! Read-only inspection for `rho journal inspect`: never creates or modifies a file and never
//! takes the lease. Uses the same scanner and classification as `Journal::open`.

use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::config::JournalConfig;
use crate::error::JournalError;
use crate::scan::{self, ScanMode};
use crate::types::Record;
use crate::watermark::Watermark;

/// What kind of problem a scan found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProblemKind {
    /// A damaged final write after a crash, above every watermark: `open` truncates it.
    TornTail,
    /// An incomplete final write while a live writer holds the lease (not damage).
    InFlightTail,
    /// Anything else: `open` refuses the journal.
    Corruption,
}

/// The first problem of a journal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// Classification.
    pub kind: ProblemKind,
    /// Segment number.
    pub segment: u64,
    /// Byte offset in the segment file.
    pub offset: u64,
    /// The seq expected at that point.
    pub seq: u64,
    /// Bytes from `offset` to the end of the file (for frame problems), else 0.
    pub bytes: u64,
    /// Human-readable reason.
    pub reason: String,
}

/// One segment file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SegmentInfo {
    /// Segment number.
    pub number: u64,
    /// First seq (header and file name agree).
    pub first_seq: u64,
    /// Project id of the header.
    pub project_id: Uuid,
    /// Writer epoch that created the segment.
    pub epoch: u64,
    /// The segment's random salt.
    pub salt: u64,
    /// Format version of the header.
    pub format_version: u32,
    /// File size in bytes.
    pub bytes: u64,
    /// Valid records found in it.
    pub records: u64,
    /// Path of the file.
    pub path: PathBuf,
}

/// One snapshot file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SnapshotInfo {
    /// Seq named by the file.
    pub seq: u64,
    /// Path of the file.
    pub path: PathBuf,
    /// File size.
    pub bytes: u64,
    /// `None` if valid, else why not.
    pub problem: Option<String>,
}

/// The result of a read-only scan.
#[derive(Clone, Debug)]
pub struct Scan {
    /// Segments verified (up to the one holding the problem, included).
    pub segments: Vec<SegmentInfo>,
    /// Valid records in order (empty when scanned with `scan_with`).
    pub records: Vec<Record>,
    /// Snapshot files, ascending seq, each checked.
    pub snapshots: Vec<SnapshotInfo>,
    /// The watermark, or why it is missing/invalid.
    pub watermark: Result<Watermark, String>,
    /// Project id (from the watermark, else segment 0).
    pub project_id: Option<Uuid>,
    /// Last valid seq.
    pub last_seq: u64,
    /// Number of valid records.
    pub record_count: u64,
    /// The first problem, if any.
    pub problem: Option<Problem>,
}

/// Scans the journal directory `dir` read-only, collecting every valid record.
/// `live_writer`: a writer holds the lease, so an incomplete final write is `InFlightTail`.
pub fn scan(dir: &Path, live_writer: bool) -> Result<Scan, JournalError> {
    let mut records = Vec::new();
    let mut s = scan_with(dir, live_writer, |r| records.push(r))?;
    s.records = records;
    Ok(s)
}

/// Like `scan`, but streams each valid record to `visit` instead of collecting them.
pub fn scan_with(
    dir: &Path,
    live_writer: bool,
    mut visit: impl FnMut(Record),
) -> Result<Scan, JournalError> {
    let max = JournalConfig::default().max_record_bytes as usize;
    let mode = ScanMode {
        live_writer,
        verify_all_snapshots: true,
        max_frame: max,
    };
    let s = scan::scan(dir, mode, &mut |v, seg, off| visit(v.to_record(seg, off)))?;
    Ok(Scan {
        segments: s.segments,
        records: Vec::new(),
        snapshots: s.snapshots,
        watermark: s.watermark,
        project_id: s.project_id,
        last_seq: s.last_seq,
        record_count: s.records,
        problem: s.problem,
    })
}
