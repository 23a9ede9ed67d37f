//! The one scanner: reads and verifies every segment and classifies the first problem
//! (torn tail, in-flight tail or corruption), and the problem and file descriptions it reports.
//! Shared by `Journal::open` and `inspect::scan`.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::error::JournalError;
use crate::frame::{self, FrameView};
use crate::header::{list_segments, SegFile, SegmentHeader, HEADER_LEN};
use crate::snapshot;
use crate::types::EntityRef;
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

/// The newest segment as left by a scan, for the writer to continue it.
#[derive(Clone, Debug)]
pub(crate) struct Tail {
    pub(crate) header: SegmentHeader,
    pub(crate) path: PathBuf,
    /// End of the last valid frame.
    pub(crate) valid_end: u64,
}

/// Everything a scan found.
#[derive(Debug)]
pub(crate) struct Scanned {
    pub(crate) watermark: Result<Watermark, String>,
    pub(crate) project_id: Option<Uuid>,
    pub(crate) segments: Vec<SegmentInfo>,
    pub(crate) snapshots: Vec<SnapshotInfo>,
    pub(crate) problem: Option<Problem>,
    pub(crate) last_seq: u64,
    pub(crate) last_epoch: u64,
    pub(crate) records: u64,
    /// Highest seq that must exist (watermark seq, valid snapshot seqs).
    pub(crate) must_exist: u64,
    pub(crate) tail: Option<Tail>,
    entities: HashMap<Uuid, Vec<(String, u64)>>,
}

impl Scanned {
    /// Last entity seq of every entity.
    pub(crate) fn entity_seqs(&self) -> HashMap<EntityRef, u64> {
        let mut m = HashMap::with_capacity(self.entities.len());
        for (id, kinds) in &self.entities {
            for (kind, seq) in kinds {
                m.insert(
                    EntityRef {
                        kind: kind.clone(),
                        id: *id,
                    },
                    *seq,
                );
            }
        }
        m
    }
}

/// How a scan should treat the tail and snapshots.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ScanMode {
    /// A live writer may be appending: an incomplete final write is `InFlightTail`.
    pub(crate) live_writer: bool,
    /// Verify every snapshot file (inspect) rather than only those above the watermark (open).
    pub(crate) verify_all_snapshots: bool,
    /// Maximum frame size to accept.
    pub(crate) max_frame: usize,
}

/// Scans the journal in `dir`, calling `visit` for every valid record in order.
/// I/O errors and a missing directory are errors; damage is reported in `Scanned::problem`.
pub(crate) fn scan(
    dir: &Path,
    mode: ScanMode,
    visit: &mut dyn FnMut(&FrameView<'_>, u64, u64),
) -> Result<Scanned, JournalError> {
    match fs::metadata(dir) {
        Ok(m) if m.is_dir() => {}
        Ok(_) => {
            return Err(JournalError::NotFound {
                path: dir.to_path_buf(),
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(JournalError::NotFound {
                path: dir.to_path_buf(),
            })
        }
        Err(e) => return Err(JournalError::io(format!("opening {}", dir.display()), e)),
    }
    let watermark = Watermark::read(dir)?;
    let (files, bad_names) = list_segments(dir)?;
    let mut s = Scanner {
        mode,
        out: Scanned {
            watermark,
            project_id: None,
            segments: Vec::new(),
            snapshots: Vec::new(),
            problem: None,
            last_seq: 0,
            last_epoch: 0,
            records: 0,
            must_exist: 0,
            tail: None,
            entities: HashMap::new(),
        },
    };
    if let Err(why) = &s.out.watermark {
        s.problem(
            ProblemKind::Corruption,
            0,
            0,
            0,
            0,
            format!("watermark: {why}"),
        );
    }
    let wm = s.out.watermark.as_ref().ok().copied();
    s.out.project_id = wm.map(|w| w.project_id);
    if s.out.project_id.is_none() {
        if let Some(first) = files.first() {
            let b = crate::fsutil::read_file(&first.path)?;
            s.out.project_id = SegmentHeader::decode(&b).ok().map(|h| h.project_id);
        }
    }
    s.check_snapshots(dir, wm)?;
    s.out.must_exist = wm.map_or(0, |w| w.seq).max(
        s.out
            .snapshots
            .iter()
            .filter(|x| x.problem.is_none())
            .map(|x| x.seq)
            .max()
            .unwrap_or(0),
    );
    if let Some(name) = bad_names.first() {
        s.problem(
            ProblemKind::Corruption,
            0,
            0,
            1,
            0,
            format!("unexpected segment file name {name}"),
        );
        return Ok(s.out);
    }
    if files.is_empty() {
        s.problem(
            ProblemKind::Corruption,
            0,
            0,
            1,
            0,
            "no segment files".into(),
        );
        return Ok(s.out);
    }
    let n = files.len();
    for (i, f) in files.iter().enumerate() {
        if f.number != i as u64 {
            s.problem(
                ProblemKind::Corruption,
                i as u64,
                0,
                s.out.last_seq + 1,
                0,
                format!("segment {i} is missing (next file is segment {})", f.number),
            );
            return Ok(s.out);
        }
        let buf = crate::fsutil::read_file(&f.path)?;
        if !s.segment(f, &buf, i + 1 == n, wm, visit) {
            return Ok(s.out);
        }
    }
    if s.out.last_seq < s.out.must_exist {
        let (seg, off) = s
            .out
            .tail
            .as_ref()
            .map_or((0, 0), |t| (t.header.segment, t.valid_end));
        let next = s.out.last_seq + 1;
        let must = s.out.must_exist;
        s.problem(
            ProblemKind::Corruption,
            seg,
            off,
            next,
            0,
            format!(
                "journal ends at seq {} below seq {must} that a checkpoint, snapshot or clean \
                 shutdown recorded",
                next - 1
            ),
        );
    } else if let Some(w) = wm.filter(|w| w.clean && w.seq != s.out.last_seq) {
        let (seg, off) = s
            .out
            .tail
            .as_ref()
            .map_or((0, 0), |t| (t.header.segment, t.valid_end));
        s.problem(
            ProblemKind::Corruption,
            seg,
            off,
            s.out.last_seq + 1,
            0,
            format!(
                "clean shutdown recorded at seq {} but the journal ends at seq {}",
                w.seq, s.out.last_seq
            ),
        );
    }
    Ok(s.out)
}

struct Scanner {
    mode: ScanMode,
    out: Scanned,
}

/// A write whose last frame has not been seen yet.
struct OpenWrite {
    /// Offset of its first frame.
    pos: usize,
    first_seq: u64,
    /// Epoch before the write.
    prev_epoch: u64,
    /// Entities its frames advanced, to roll back.
    touched: Vec<(Uuid, String)>,
}

impl Scanner {
    fn problem(
        &mut self,
        kind: ProblemKind,
        segment: u64,
        offset: u64,
        seq: u64,
        bytes: u64,
        reason: String,
    ) {
        if self.out.problem.is_none() {
            self.out.problem = Some(Problem {
                kind,
                segment,
                offset,
                seq,
                bytes,
                reason,
            });
        }
    }

    fn check_snapshots(&mut self, dir: &Path, wm: Option<Watermark>) -> Result<(), JournalError> {
        let floor = wm.map_or(0, |w| w.seq);
        for (seq, path) in snapshot::list(dir)? {
            if !self.mode.verify_all_snapshots && seq <= floor {
                continue;
            }
            let bytes = fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
            let problem = match self.out.project_id {
                Some(id) => snapshot::load(&path, seq, id)?.err(),
                None => Some("project id unknown".to_string()),
            };
            self.out.snapshots.push(SnapshotInfo {
                seq,
                path,
                bytes,
                problem,
            });
        }
        Ok(())
    }

    /// Scans one segment; false when a problem ends the scan.
    fn segment(
        &mut self,
        f: &SegFile,
        buf: &[u8],
        newest: bool,
        wm: Option<Watermark>,
        visit: &mut dyn FnMut(&FrameView<'_>, u64, u64),
    ) -> bool {
        let expected = self.out.last_seq + 1;
        let h = match SegmentHeader::decode(buf) {
            Ok(h) => h,
            Err(why) => {
                self.problem(ProblemKind::Corruption, f.number, 0, expected, 0, why);
                return false;
            }
        };
        let header_err = if Some(h.project_id) != self.out.project_id {
            Some("segment belongs to another project".to_string())
        } else if h.segment != f.number || h.first_seq != f.first_seq {
            Some(format!(
                "header says segment {} first seq {}, file name says segment {} first seq {}",
                h.segment, h.first_seq, f.number, f.first_seq
            ))
        } else if h.first_seq != expected {
            Some(format!(
                "segment starts at seq {}, expected {expected} (seq gap)",
                h.first_seq
            ))
        } else if h.epoch < self.out.segments.last().map_or(0, |p| p.epoch)
            || wm.is_some_and(|w| h.epoch > w.epoch)
        {
            Some(format!("segment epoch {} is out of order", h.epoch))
        } else {
            None
        };
        if let Some(why) = header_err {
            self.problem(ProblemKind::Corruption, f.number, 0, expected, 0, why);
            return false;
        }
        self.out.segments.push(SegmentInfo {
            number: f.number,
            first_seq: h.first_seq,
            project_id: h.project_id,
            epoch: h.epoch,
            salt: h.salt,
            format_version: h.version,
            bytes: buf.len() as u64,
            records: 0,
            path: f.path.clone(),
        });
        let mut pos = HEADER_LEN;
        let mut ok = true;
        // The write (group commit) whose last frame has not been seen yet.
        let mut write: Option<OpenWrite> = None;
        // A preallocated segment's frames end where only zeros remain to the end of the file.
        let frames_end = h.frames_end(buf);
        while pos < frames_end {
            let expected = self.out.last_seq + 1;
            match frame::decode(buf, pos, h.salt, h.segment, self.mode.max_frame) {
                Ok(v) => {
                    if v.seq == v.write_first_seq {
                        write = Some(OpenWrite {
                            pos,
                            first_seq: v.seq,
                            prev_epoch: self.out.last_epoch,
                            touched: Vec::new(),
                        });
                    }
                    if let Some(why) = self.check_frame(&v, expected, wm) {
                        self.problem(
                            ProblemKind::Corruption,
                            f.number,
                            pos as u64,
                            expected,
                            v.len as u64,
                            why,
                        );
                        ok = false;
                        break;
                    }
                    visit(&v, f.number, pos as u64);
                    if let Some(w) = &mut write {
                        w.touched.push((v.entity_id, v.entity_kind.to_string()));
                    }
                    if v.write_end {
                        write = None;
                    }
                    self.out.last_seq = v.seq;
                    self.out.last_epoch = v.epoch;
                    self.out.records += 1;
                    if let Some(last) = self.out.segments.last_mut() {
                        last.records += 1;
                    }
                    pos += v.len;
                }
                Err(e) => {
                    self.classify_bad_frame(f.number, buf, pos, &h, newest, wm, e.to_string());
                    ok = false;
                    break;
                }
            }
        }
        let mut valid_end = pos as u64;
        if newest {
            if let Some(w) = write {
                if self.tear_final_write(f.number, buf.len(), w, wm) {
                    valid_end = self.out.problem.as_ref().map_or(valid_end, |p| p.offset);
                }
                ok = false;
            }
            self.out.tail = Some(Tail {
                header: h,
                path: f.path.clone(),
                valid_end,
            });
        }
        ok
    }

    /// The newest segment ends inside a write (its last frame never landed, or a bad frame of the
    /// same write was classified as a torn or in-flight tail): the whole write is the tail. Rolls
    /// the scan back to the write's start; returns true when the tail is torn or in flight.
    fn tear_final_write(
        &mut self,
        segment: u64,
        len: usize,
        w: OpenWrite,
        wm: Option<Watermark>,
    ) -> bool {
        let bytes = (len - w.pos) as u64;
        let reason = format!("the final write (from seq {}) is incomplete", w.first_seq);
        match self.out.problem.as_ref().map(|p| p.kind) {
            Some(ProblemKind::Corruption) => return false,
            Some(_) => {
                // A bad frame inside the write was classified as a tail: widen it to the write.
                if let Some(p) = self.out.problem.as_mut() {
                    p.bytes = bytes;
                    p.offset = w.pos as u64;
                    p.seq = w.first_seq;
                }
            }
            None => {
                let kind = if self.mode.live_writer {
                    ProblemKind::InFlightTail
                } else {
                    ProblemKind::TornTail
                };
                self.problem(
                    kind,
                    segment,
                    w.pos as u64,
                    w.first_seq,
                    bytes,
                    reason.clone(),
                );
            }
        }
        let must = self.out.must_exist;
        let clean = wm.is_some_and(|wm| wm.clean);
        if (w.first_seq <= must || clean) && !self.mode.live_writer {
            if let Some(p) = self.out.problem.as_mut() {
                p.kind = ProblemKind::Corruption;
                p.reason = if clean {
                    format!("{reason} after a clean shutdown")
                } else {
                    format!(
                        "{reason} at or below seq {must} that a checkpoint or snapshot recorded"
                    )
                };
            }
            return false;
        }
        // Roll back what the write's frames added.
        let n = w.touched.len() as u64;
        self.out.last_seq = w.first_seq - 1;
        self.out.last_epoch = w.prev_epoch;
        self.out.records -= n;
        if let Some(last) = self.out.segments.last_mut() {
            last.records -= n;
        }
        for (id, kind) in w.touched {
            if let Some(kinds) = self.out.entities.get_mut(&id) {
                if let Some(i) = kinds.iter().position(|(k, _)| *k == kind) {
                    kinds[i].1 -= 1;
                    if kinds[i].1 == 0 {
                        kinds.remove(i);
                    }
                }
            }
        }
        true
    }

    fn check_frame(
        &mut self,
        v: &FrameView<'_>,
        expected: u64,
        wm: Option<Watermark>,
    ) -> Option<String> {
        if v.seq != expected {
            return Some(format!("frame has seq {}, expected {expected}", v.seq));
        }
        if v.write_first_seq > v.seq {
            return Some("frame's write starts after the frame".to_string());
        }
        if v.epoch < self.out.last_epoch {
            return Some(format!(
                "epoch goes backwards from {} to {}",
                self.out.last_epoch, v.epoch
            ));
        }
        if let Some(w) = wm.filter(|w| v.epoch > w.epoch) {
            return Some(format!(
                "frame epoch {} is above the watermark's epoch {}",
                v.epoch, w.epoch
            ));
        }
        let kinds = self.out.entities.entry(v.entity_id).or_default();
        match kinds.iter_mut().find(|(k, _)| k == v.entity_kind) {
            Some((_, last)) => {
                if v.entity_seq != *last + 1 {
                    return Some(format!(
                        "entity {}:{} seq {} follows {}",
                        v.entity_kind, v.entity_id, v.entity_seq, last
                    ));
                }
                *last = v.entity_seq;
            }
            None => {
                if v.entity_seq != 1 {
                    return Some(format!(
                        "entity {}:{} starts at entity seq {}",
                        v.entity_kind, v.entity_id, v.entity_seq
                    ));
                }
                kinds.push((v.entity_kind.to_string(), 1));
            }
        }
        None
    }

    /// Decides whether a bad frame at `pos` is a torn/in-flight tail or corruption.
    #[allow(clippy::too_many_arguments)]
    fn classify_bad_frame(
        &mut self,
        segment: u64,
        buf: &[u8],
        pos: usize,
        h: &SegmentHeader,
        newest: bool,
        wm: Option<Watermark>,
        why: String,
    ) {
        let expected = self.out.last_seq + 1;
        let bytes = (buf.len() - pos) as u64;
        let corrupt = |s: &mut Self, reason: String| {
            s.problem(
                ProblemKind::Corruption,
                segment,
                pos as u64,
                expected,
                bytes,
                reason,
            )
        };
        if !newest {
            return corrupt(self, format!("{why} in a segment that is not the newest"));
        }
        if let Some((at, seq)) = self.later_write(buf, pos, h, expected) {
            return corrupt(
                self,
                format!("{why}, followed by a valid frame (seq {seq}) at offset {at}"),
            );
        }
        let must = self.out.must_exist;
        if expected <= must {
            return corrupt(
                self,
                format!("{why} at or below seq {must} that a checkpoint or snapshot recorded"),
            );
        }
        if self.mode.live_writer {
            return self.problem(
                ProblemKind::InFlightTail,
                segment,
                pos as u64,
                expected,
                bytes,
                why,
            );
        }
        if wm.is_some_and(|w| w.clean) {
            return corrupt(self, format!("{why} after a clean shutdown"));
        }
        self.problem(
            ProblemKind::TornTail,
            segment,
            pos as u64,
            expected,
            bytes,
            why,
        )
    }

    /// Looks for a valid frame after a bad one at every 8-byte aligned offset. Frames of the same
    /// (final, unsynced) write as the bad frame are skipped; the first frame of a later write is
    /// returned as (offset, seq).
    fn later_write(
        &self,
        buf: &[u8],
        bad: usize,
        h: &SegmentHeader,
        expected: u64,
    ) -> Option<(usize, u64)> {
        let max_seq = expected.saturating_add((buf.len() / frame::MIN_FRAME) as u64);
        let mut p = bad + 8;
        while p + frame::MIN_FRAME <= buf.len() {
            let plausible = frame::peek_seq(buf, p).is_some_and(|s| s >= expected && s <= max_seq);
            if plausible {
                if let Ok(v) = frame::decode(buf, p, h.salt, h.segment, self.mode.max_frame) {
                    if v.write_first_seq > expected {
                        return Some((p, v.seq));
                    }
                    p += v.len;
                    continue;
                }
            }
            p += 8;
        }
        None
    }
}
