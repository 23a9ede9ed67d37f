//! Read-only inspection for `rho journal inspect`: never creates or modifies a file and never
//! takes the lease. Uses the same scanner and classification as `Journal::open`.

use std::path::Path;

use uuid::Uuid;

use crate::config::JournalConfig;
use crate::error::JournalError;
use crate::scan::{self, ScanMode};
pub use crate::scan::{Problem, ProblemKind, SegmentInfo, SnapshotInfo};
use crate::types::Record;
use crate::watermark::Watermark;

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
