//! `RecordIter`: reads durable records from the segment files in seq order (read-only).

use std::path::{Path, PathBuf};

use crate::error::JournalError;
use crate::frame;
use crate::header::{SegmentHeader, HEADER_LEN};
use crate::types::Record;

/// Segment files of a journal directory with their first seqs (for readers).
pub(crate) fn segment_paths(dir: &Path) -> Result<Vec<(u64, u64, PathBuf)>, JournalError> {
    let (segs, _) = crate::header::list_segments(dir)?;
    Ok(segs
        .into_iter()
        .map(|s| (s.number, s.first_seq, s.path))
        .collect())
}

/// Iterator over durable records with seq in `from..=until`, read segment by segment.
pub struct RecordIter {
    segments: std::vec::IntoIter<(u64, u64, std::path::PathBuf)>,
    current: Option<Current>,
    /// Next seq to yield (records below it are skipped).
    next: u64,
    /// Next seq expected on disk (contiguity check).
    expected: u64,
    until: u64,
    max_frame: usize,
    finished: bool,
}

struct Current {
    number: u64,
    header: SegmentHeader,
    buf: Vec<u8>,
    pos: usize,
    /// Where the segment's frames end (a preallocated tail of zeros follows).
    end: usize,
}

impl RecordIter {
    /// Records with seq >= `from` up to `until` (inclusive) in journal `dir`.
    pub(crate) fn new(
        dir: &Path,
        from: u64,
        until: u64,
        max_frame: usize,
    ) -> Result<RecordIter, JournalError> {
        let from = from.max(1);
        let mut segs = segment_paths(dir)?;
        // Start in the last segment whose first seq is <= from.
        let start = segs
            .iter()
            .rposition(|(_, first, _)| *first <= from)
            .unwrap_or(0);
        segs.drain(..start);
        Ok(RecordIter {
            next: from,
            expected: segs.first().map_or(from, |s| s.1),
            segments: segs.into_iter(),
            current: None,
            until,
            max_frame,
            finished: from > until,
        })
    }

    fn corrupt(
        &mut self,
        segment: u64,
        offset: u64,
        reason: String,
    ) -> Option<Result<Record, JournalError>> {
        self.finished = true;
        Some(Err(JournalError::Corrupt {
            segment,
            offset,
            seq: self.expected,
            reason,
        }))
    }
}

impl Iterator for RecordIter {
    type Item = Result<Record, JournalError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if self.finished || self.next > self.until {
                self.finished = true;
                return None;
            }
            let Some(cur) = self.current.as_mut() else {
                let Some((number, first, path)) = self.segments.next() else {
                    let reason = format!("journal ends before durable seq {}", self.until);
                    return self.corrupt(0, 0, reason);
                };
                let buf = match crate::fsutil::read_file(&path) {
                    Ok(b) => b,
                    Err(e) => {
                        self.finished = true;
                        return Some(Err(e));
                    }
                };
                let header = match SegmentHeader::decode(&buf) {
                    Ok(h) if h.first_seq == first && h.segment == number => h,
                    Ok(_) => {
                        return self.corrupt(number, 0, "header does not match file name".into())
                    }
                    Err(why) => return self.corrupt(number, 0, why),
                };
                if first != self.expected {
                    let reason =
                        format!("segment starts at seq {first}, expected {}", self.expected);
                    return self.corrupt(number, 0, reason);
                }
                let end = header.frames_end(&buf);
                self.current = Some(Current {
                    number,
                    header,
                    buf,
                    pos: HEADER_LEN,
                    end,
                });
                continue;
            };
            if cur.pos >= cur.end {
                self.current = None;
                continue;
            }
            let (number, pos) = (cur.number, cur.pos);
            match frame::decode(&cur.buf, pos, cur.header.salt, number, self.max_frame) {
                Ok(v) => {
                    cur.pos += v.len;
                    if v.seq > self.until {
                        self.finished = true;
                        return None;
                    }
                    if v.seq != self.expected {
                        let reason = format!("frame has seq {}, expected {}", v.seq, self.expected);
                        return self.corrupt(number, pos as u64, reason);
                    }
                    self.expected += 1;
                    if v.seq < self.next {
                        continue;
                    }
                    self.next = v.seq + 1;
                    return Some(Ok(v.to_record(number, pos as u64)));
                }
                Err(e) => return self.corrupt(number, pos as u64, e.to_string()),
            }
        }
    }
}
