//! Unit tests of preallocated (version 2) segments: a zero-filled tail is unused space, never a
//! record and never damage; zeros inside a torn write are classified exactly as in version 1.

use std::path::Path;

use uuid::Uuid;

use crate::frame::{encode_into, Stamp};
use crate::header::{segment_file_name, SegmentHeader, FORMAT_VERSION, PREALLOCATED_VERSION};
use crate::inspect::{scan, ProblemKind};
use crate::scan_tests::rec;
use crate::watermark::Watermark;
use crate::{Journal, JournalConfig};

const PID: Uuid = Uuid::from_u128(0x5678);
const SALT: u64 = 42;

/// A segment of `version` with frames (seq, write_first_seq, entity_seq); entity 1, epoch 1.
/// Returns its bytes (not yet written) and each frame's offset.
fn build(version: u32, frames: &[(u64, u64, u64)]) -> (Vec<u8>, Vec<usize>) {
    let h = SegmentHeader {
        version,
        project_id: PID,
        segment: 0,
        first_seq: 1,
        epoch: 1,
        salt: SALT,
    };
    let mut buf = h.encode().to_vec();
    let mut offs = Vec::new();
    for (i, &(seq, wf, es)) in frames.iter().enumerate() {
        offs.push(buf.len());
        let write_end = frames.get(i + 1).is_none_or(|next| next.1 > seq);
        let st = Stamp {
            seq,
            write_first_seq: wf,
            entity_seq: es,
            epoch: 1,
            write_end,
        };
        encode_into(&mut buf, SALT, 0, st, &rec(1));
    }
    (buf, offs)
}

fn store(dir: &Path, buf: &[u8], clean: bool, mark: u64) {
    std::fs::write(dir.join(segment_file_name(0, 1)), buf).unwrap();
    Watermark {
        clean,
        project_id: PID,
        seq: mark,
        epoch: 5,
    }
    .write(dir)
    .unwrap();
}

fn problem(dir: &Path) -> Option<(ProblemKind, u64, u64)> {
    scan(dir, false)
        .unwrap()
        .problem
        .map(|p| (p.kind, p.seq, p.offset))
}

#[test]
fn a_zero_tail_is_unused_space_in_a_preallocated_segment() {
    let t = tempfile::tempdir().unwrap();
    let (mut buf, _) = build(PREALLOCATED_VERSION, &[(1, 1, 1), (2, 2, 2)]);
    buf.resize(buf.len() + 65536, 0);
    store(t.path(), &buf, false, 0);
    let s = scan(t.path(), false).unwrap();
    assert!(s.problem.is_none(), "{:?}", s.problem);
    assert_eq!((s.last_seq, s.records.len()), (2, 2));
    // The same after a clean shutdown whose seq is the last record.
    store(t.path(), &buf, true, 2);
    assert_eq!(problem(t.path()), None);
    // And in a version 1 segment the same bytes stay a torn tail, as before.
    let (mut old, offs) = build(FORMAT_VERSION, &[(1, 1, 1), (2, 2, 2)]);
    old.resize(old.len() + 4096, 0);
    store(t.path(), &old, false, 0);
    let end = (offs[1] + (offs[1] - offs[0])) as u64;
    assert_eq!(problem(t.path()), Some((ProblemKind::TornTail, 3, end)));
}

#[test]
fn zeros_inside_the_final_write_are_still_a_torn_tail() {
    let t = tempfile::tempdir().unwrap();
    // Writes [1], [2, 3]; the page holding frame 2 never landed (zeros), frame 3 did.
    let (mut buf, offs) = build(PREALLOCATED_VERSION, &[(1, 1, 1), (2, 2, 2), (3, 2, 3)]);
    buf[offs[1]..offs[2]].iter_mut().for_each(|b| *b = 0);
    buf.resize(buf.len() + 4096, 0);
    store(t.path(), &buf, false, 0);
    assert_eq!(
        problem(t.path()),
        Some((ProblemKind::TornTail, 2, offs[1] as u64))
    );
    assert_eq!(scan(t.path(), false).unwrap().last_seq, 1);
    // Below a watermark the same damage is corruption.
    store(t.path(), &buf, false, 2);
    assert_eq!(
        problem(t.path()).map(|p| p.0),
        Some(ProblemKind::Corruption)
    );
}

#[test]
fn zeros_before_a_later_write_are_corruption() {
    let t = tempfile::tempdir().unwrap();
    // Writes [1], [2], [3]: write [2] reads as zeros, but write [3] after it exists.
    let (mut buf, offs) = build(PREALLOCATED_VERSION, &[(1, 1, 1), (2, 2, 2), (3, 3, 3)]);
    buf[offs[1]..offs[2]].iter_mut().for_each(|b| *b = 0);
    buf.resize(buf.len() + 4096, 0);
    store(t.path(), &buf, false, 0);
    assert_eq!(
        problem(t.path()),
        Some((ProblemKind::Corruption, 2, offs[1] as u64))
    );
}

#[test]
fn an_unfinished_final_write_ending_in_zeros_is_torn_whole() {
    let t = tempfile::tempdir().unwrap();
    // Writes [1], [2, 3, 4]: frame 4 never landed, the preallocated zeros follow frame 3.
    let frames = [(1, 1, 1), (2, 2, 2), (3, 2, 3), (4, 2, 4)];
    let (mut buf, offs) = build(PREALLOCATED_VERSION, &frames);
    buf.truncate(offs[3]);
    buf.resize(offs[3] + 8192, 0);
    store(t.path(), &buf, false, 0);
    let s = scan(t.path(), false).unwrap();
    let p = s.problem.unwrap();
    assert_eq!(
        (p.kind, p.seq, p.offset),
        (ProblemKind::TornTail, 2, offs[1] as u64)
    );
    assert_eq!(s.last_seq, 1);
    // After a clean shutdown it is corruption.
    store(t.path(), &buf, true, 1);
    assert_eq!(
        problem(t.path()).map(|p| p.0),
        Some(ProblemKind::Corruption)
    );
}

#[test]
fn garbage_after_the_zeros_is_a_bad_frame() {
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(PREALLOCATED_VERSION, &[(1, 1, 1), (2, 2, 2)]);
    let end = buf.len();
    buf.resize(end + 4096, 0);
    buf[end + 1000] = 0x99;
    store(t.path(), &buf, false, 0);
    assert_eq!(
        problem(t.path()),
        Some((ProblemKind::TornTail, 3, end as u64))
    );
    // After a clean shutdown, any bad frame is corruption.
    store(t.path(), &buf, true, 2);
    assert_eq!(
        problem(t.path()).map(|p| p.0),
        Some(ProblemKind::Corruption)
    );
    assert!(offs[1] < end);
}

fn segment_len(dir: &Path) -> u64 {
    std::fs::metadata(dir.join(segment_file_name(0, 1)))
        .unwrap()
        .len()
}

#[test]
fn the_writer_preallocates_and_an_orderly_stop_trims() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("j");
    let j = Journal::create(&dir, PID, JournalConfig::default()).unwrap();
    for i in 0..10 {
        j.append(vec![rec(i)]).unwrap();
    }
    let used = scan(&dir, true)
        .unwrap()
        .records
        .last()
        .map(|r| r.offset + u64::from(r.bytes))
        .unwrap();
    assert!(
        segment_len(&dir) >= used + 4096,
        "the segment is preallocated"
    );
    // A crash leaves the zeros: open reads them as unused space, nothing is torn or lost.
    let copy = t.path().join("crashed");
    std::fs::create_dir_all(copy.join("snapshots")).unwrap();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), copy.join(e.file_name())).unwrap();
        }
    }
    let (c, report) = Journal::open(&copy, JournalConfig::default()).unwrap();
    assert!(report.torn_tail.is_none());
    assert_eq!(report.last_seq, 11);
    assert_eq!(c.records_from(1).unwrap().count(), 12);
    drop(c);
    // Dropping (or closing) gives the unused space back.
    drop(j);
    assert_eq!(segment_len(&dir), used);
    let (j, report) = Journal::open(&dir, JournalConfig::default()).unwrap();
    assert!(report.torn_tail.is_none());
    j.close().unwrap();
    assert!(scan(&dir, false).unwrap().problem.is_none());
}

#[test]
fn a_version_1_journal_still_opens_and_is_never_preallocated() {
    let t = tempfile::tempdir().unwrap();
    let (buf, _) = build(FORMAT_VERSION, &[(1, 1, 1), (2, 2, 2)]);
    store(t.path(), &buf, false, 0);
    std::fs::create_dir_all(t.path().join("snapshots")).unwrap();
    let (j, report) = Journal::open(t.path(), JournalConfig::default()).unwrap();
    assert_eq!(report.last_seq, 2);
    j.append(vec![rec(1)]).unwrap();
    let s = scan(t.path(), true).unwrap();
    let last = s.records.last().unwrap();
    assert_eq!(segment_len(t.path()), last.offset + u64::from(last.bytes));
    assert_eq!(s.segments[0].format_version, FORMAT_VERSION);
    j.close().unwrap();
    let s = scan(t.path(), false).unwrap();
    assert!(s.problem.is_none());
    assert_eq!(s.last_seq, 5);
}
