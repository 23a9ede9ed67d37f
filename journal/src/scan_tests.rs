//! Unit tests of the scanner's classification on hand-built segments (epochs, writes, entity seqs).

use std::path::Path;

use uuid::Uuid;

use crate::frame::{encode_into, Stamp};
use crate::header::{segment_file_name, SegmentHeader, FORMAT_VERSION};
use crate::inspect::{scan, ProblemKind};
use crate::types::{EntityRef, NewRecord};
use crate::watermark::Watermark;

const PID: Uuid = Uuid::from_u128(0x1234);
const SALT: u64 = 99;

/// A small record of entity `n` (also used by `prealloc_tests`).
pub(crate) fn rec(n: u128) -> NewRecord {
    NewRecord {
        entity: EntityRef {
            kind: "doc".into(),
            id: Uuid::from_u128(n),
        },
        time_ms: 1,
        principal: "p".into(),
        change_id: None,
        kind: "k".into(),
        codec: 1,
        payload: vec![7; 30],
    }
}

/// Frames given as (seq, write_first_seq, entity_seq, epoch, entity); returns the file bytes and
/// each frame's offset.
fn build(
    dir: &Path,
    frames: &[(u64, u64, u64, u64, u128)],
    clean: bool,
    mark: u64,
) -> (Vec<u8>, Vec<usize>) {
    std::fs::create_dir_all(dir).unwrap();
    let h = SegmentHeader {
        version: FORMAT_VERSION,
        project_id: PID,
        segment: 0,
        first_seq: 1,
        epoch: 1,
        salt: SALT,
    };
    let mut buf = h.encode().to_vec();
    let mut offs = Vec::new();
    for (i, &(seq, wf, es, epoch, ent)) in frames.iter().enumerate() {
        offs.push(buf.len());
        // A frame ends its write when the next frame belongs to a later write (or there is none).
        let write_end = frames.get(i + 1).is_none_or(|next| next.1 > seq);
        let st = Stamp {
            seq,
            write_first_seq: wf,
            entity_seq: es,
            epoch,
            write_end,
        };
        encode_into(&mut buf, SALT, 0, st, &rec(ent));
    }
    std::fs::write(dir.join(segment_file_name(0, 1)), &buf).unwrap();
    let w = Watermark {
        clean,
        project_id: PID,
        seq: mark,
        epoch: 5,
    };
    w.write(dir).unwrap();
    (buf, offs)
}

fn problem(dir: &Path) -> Option<(ProblemKind, u64, String)> {
    scan(dir, false)
        .unwrap()
        .problem
        .map(|p| (p.kind, p.seq, p.reason))
}

fn damage(dir: &Path, buf: &mut [u8], at: usize) {
    buf[at] ^= 0x40;
    std::fs::write(dir.join(segment_file_name(0, 1)), &*buf).unwrap();
}

#[test]
fn valid_hand_built_journal_scans_clean() {
    let t = tempfile::tempdir().unwrap();
    build(
        t.path(),
        &[(1, 1, 1, 1, 1), (2, 2, 1, 1, 2), (3, 2, 2, 2, 1)],
        false,
        0,
    );
    assert_eq!(problem(t.path()), None);
    assert_eq!(scan(t.path(), false).unwrap().records.len(), 3);
}

#[test]
fn semantic_errors_are_corruption() {
    type Frames = &'static [(u64, u64, u64, u64, u128)];
    let cases: &[(Frames, &str)] = &[
        (&[(1, 1, 1, 2, 1), (2, 2, 2, 1, 1)], "epoch goes backwards"),
        (&[(1, 1, 1, 1, 1), (3, 3, 2, 1, 1)], "expected 2"),
        (&[(1, 1, 1, 1, 1), (1, 1, 2, 1, 1)], "expected 2"),
        (&[(1, 1, 1, 1, 1), (2, 2, 3, 1, 1)], "seq 3 follows 1"),
        (&[(1, 1, 2, 1, 1)], "starts at entity seq 2"),
        (&[(1, 1, 1, 9, 1)], "above the watermark"),
    ];
    for (i, (frames, want)) in cases.iter().enumerate() {
        let t = tempfile::tempdir().unwrap();
        build(t.path(), frames, false, 0);
        let (kind, _, reason) = problem(t.path()).unwrap_or_else(|| panic!("case {i} accepted"));
        assert_eq!(kind, ProblemKind::Corruption, "case {i}");
        assert!(reason.contains(want), "case {i}: {reason}");
    }
}

#[test]
fn damage_inside_the_final_write_is_torn_but_before_a_later_write_is_corruption() {
    // Writes: [1], [2, 3, 4] (one group commit).
    let frames = [
        (1, 1, 1, 1, 1),
        (2, 2, 2, 1, 1),
        (3, 2, 3, 1, 1),
        (4, 2, 4, 1, 1),
    ];
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 0);
    damage(t.path(), &mut buf, offs[2] + 20);
    let (kind, seq, _) = problem(t.path()).unwrap();
    // The whole final write is the torn tail, not only its damaged frame: a transaction is never
    // kept in part.
    assert_eq!((kind, seq), (ProblemKind::TornTail, 2));
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 0);
    damage(t.path(), &mut buf, offs[1] + 20);
    let (kind, seq, _) = problem(t.path()).unwrap();
    assert_eq!((kind, seq), (ProblemKind::TornTail, 2));
    // Damage in write [1] followed by the later write [2, 3, 4]: corruption.
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 0);
    damage(t.path(), &mut buf, offs[0] + 20);
    let (kind, seq, reason) = problem(t.path()).unwrap();
    assert_eq!((kind, seq), (ProblemKind::Corruption, 1), "{reason}");
    assert!(reason.contains("followed by a valid frame"), "{reason}");
    // Torn final write below the watermark, or after a clean shutdown: corruption.
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 3);
    damage(t.path(), &mut buf, offs[2] + 20);
    assert_eq!(problem(t.path()).unwrap().0, ProblemKind::Corruption);
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, true, 4);
    damage(t.path(), &mut buf, offs[3] + 20);
    assert_eq!(problem(t.path()).unwrap().0, ProblemKind::Corruption);
}

#[test]
fn a_final_write_cut_at_a_frame_boundary_is_torn_whole() {
    // Writes: [1], [2, 3, 4]; the file ends after frame 3, so write [2, 3, 4] never finished.
    let frames = [
        (1, 1, 1, 1, 1),
        (2, 2, 2, 1, 1),
        (3, 2, 3, 1, 1),
        (4, 2, 4, 1, 1),
    ];
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 0);
    buf.truncate(offs[3]);
    std::fs::write(t.path().join(segment_file_name(0, 1)), &buf).unwrap();
    let s = scan(t.path(), false).unwrap();
    let p = s.problem.expect("an unfinished write is a torn tail");
    assert_eq!(
        (p.kind, p.seq, p.offset),
        (ProblemKind::TornTail, 2, offs[1] as u64)
    );
    assert_eq!(
        s.last_seq, 1,
        "the unfinished write's frames are not counted"
    );
    // While a writer holds the lease the same bytes are in flight, not damage.
    let s = scan(t.path(), true).unwrap();
    assert_eq!(s.problem.unwrap().kind, ProblemKind::InFlightTail);
    // Below a watermark it is corruption.
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &frames, false, 2);
    buf.truncate(offs[3]);
    std::fs::write(t.path().join(segment_file_name(0, 1)), &buf).unwrap();
    assert_eq!(
        scan(t.path(), false).unwrap().problem.unwrap().kind,
        ProblemKind::Corruption
    );
}

#[test]
fn zeroed_tail_pages_are_torn() {
    let t = tempfile::tempdir().unwrap();
    let (mut buf, offs) = build(t.path(), &[(1, 1, 1, 1, 1), (2, 2, 2, 1, 1)], false, 0);
    buf.truncate(offs[1]);
    buf.resize(offs[1] + 4096, 0);
    std::fs::write(t.path().join(segment_file_name(0, 1)), &buf).unwrap();
    let s = scan(t.path(), false).unwrap();
    let p = s.problem.unwrap();
    assert_eq!((p.kind, p.seq, p.bytes), (ProblemKind::TornTail, 2, 4096));
}
