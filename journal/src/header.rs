//! Segment files: their names, listing a journal directory, and the fixed 72-byte header.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::error::JournalError;

/// Bytes of a segment header; the first frame starts here.
pub(crate) const HEADER_LEN: usize = 72;
const MAGIC: &[u8; 8] = b"RHOJSEG\0";
/// Format version 1: a segment ends at its last frame; nothing may follow it.
pub(crate) const FORMAT_VERSION: u32 = 1;
/// Format version 2 (written by every new segment): the same frames, but the file may be
/// preallocated with zeros after the last frame (see FORMAT.md, "Preallocated tail").
pub(crate) const PREALLOCATED_VERSION: u32 = 2;

/// The decoded header of a segment file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SegmentHeader {
    pub(crate) version: u32,
    pub(crate) project_id: Uuid,
    pub(crate) segment: u64,
    pub(crate) first_seq: u64,
    pub(crate) epoch: u64,
    pub(crate) salt: u64,
}

impl SegmentHeader {
    /// Encodes the header with its CRC.
    pub(crate) fn encode(&self) -> [u8; HEADER_LEN] {
        let mut b = [0u8; HEADER_LEN];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&self.version.to_le_bytes());
        // 12..16 reserved (zero)
        b[16..32].copy_from_slice(self.project_id.as_bytes());
        b[32..40].copy_from_slice(&self.segment.to_le_bytes());
        b[40..48].copy_from_slice(&self.first_seq.to_le_bytes());
        b[48..56].copy_from_slice(&self.epoch.to_le_bytes());
        b[56..64].copy_from_slice(&self.salt.to_le_bytes());
        let crc = crc32fast::hash(&b[0..64]);
        b[64..68].copy_from_slice(&crc.to_le_bytes());
        b
    }

    /// Decodes and verifies a header; the error says what is wrong.
    pub(crate) fn decode(buf: &[u8]) -> Result<SegmentHeader, String> {
        if buf.len() < HEADER_LEN {
            return Err(format!(
                "segment header is {} bytes, expected {HEADER_LEN}",
                buf.len()
            ));
        }
        if &buf[0..8] != MAGIC {
            return Err("bad segment magic".to_string());
        }
        let crc = u32_at(buf, 64);
        if crc32fast::hash(&buf[0..64]) != crc {
            return Err("segment header checksum mismatch".to_string());
        }
        let version = u32_at(buf, 8);
        if version != FORMAT_VERSION && version != PREALLOCATED_VERSION {
            return Err(format!("unsupported segment format version {version}"));
        }
        if buf[12..16] != [0; 4] || buf[68..72] != [0; 4] {
            return Err("non-zero reserved bytes in segment header".to_string());
        }
        let mut id = [0u8; 16];
        id.copy_from_slice(&buf[16..32]);
        Ok(SegmentHeader {
            version,
            project_id: Uuid::from_bytes(id),
            segment: u64_at(buf, 32),
            first_seq: u64_at(buf, 40),
            epoch: u64_at(buf, 48),
            salt: u64_at(buf, 56),
        })
    }
}

impl SegmentHeader {
    /// Whether zero-filled, preallocated space may follow the last frame.
    pub(crate) fn preallocated(&self) -> bool {
        self.version == PREALLOCATED_VERSION
    }

    /// Where the frames of segment file `buf` end at the latest: in a preallocated segment, the
    /// start of the run of zero bytes that reaches the end of the file (a frame boundary at or
    /// after it is the unused tail, never a frame); otherwise the end of the file.
    pub(crate) fn frames_end(&self, buf: &[u8]) -> usize {
        if !self.preallocated() {
            return buf.len();
        }
        buf.iter()
            .rposition(|&b| b != 0)
            .map_or(0, |i| i + 1)
            .max(HEADER_LEN.min(buf.len()))
    }
}

/// `{segment:020}-{first_seq:020}.seg`
pub(crate) fn segment_file_name(segment: u64, first_seq: u64) -> String {
    format!("{segment:020}-{first_seq:020}.seg")
}

/// Parses a segment file name into (segment, first seq); `None` if it is not one.
pub(crate) fn parse_segment_name(name: &str) -> Option<(u64, u64)> {
    let stem = name.strip_suffix(".seg")?;
    let (a, b) = stem.split_once('-')?;
    if a.len() != 20 || b.len() != 20 {
        return None;
    }
    if !a.bytes().all(|c| c.is_ascii_digit()) || !b.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// A segment file found by name.
#[derive(Clone, Debug)]
pub(crate) struct SegFile {
    pub(crate) number: u64,
    pub(crate) first_seq: u64,
    pub(crate) path: PathBuf,
}

/// Lists `*.seg` files sorted by segment number; names that look like segments but do not parse
/// are returned separately.
pub(crate) fn list_segments(dir: &Path) -> Result<(Vec<SegFile>, Vec<String>), JournalError> {
    let entries = fs::read_dir(dir).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            JournalError::NotFound {
                path: dir.to_path_buf(),
            }
        } else {
            JournalError::io(format!("listing {}", dir.display()), e)
        }
    })?;
    let mut segs = Vec::new();
    let mut bad = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| JournalError::io(format!("listing {}", dir.display()), e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".seg") {
            continue;
        }
        match parse_segment_name(&name) {
            Some((number, first_seq)) => segs.push(SegFile {
                number,
                first_seq,
                path: entry.path(),
            }),
            None => bad.push(name),
        }
    }
    segs.sort_by_key(|s| s.number);
    Ok((segs, bad))
}

/// Little-endian u32 at `at` (caller guarantees bounds).
pub(crate) fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut x = [0u8; 4];
    x.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(x)
}

/// Little-endian u64 at `at` (caller guarantees bounds).
pub(crate) fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut x = [0u8; 8];
    x.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_round_trip_and_names() {
        let h = SegmentHeader {
            version: FORMAT_VERSION,
            project_id: Uuid::new_v4(),
            segment: 3,
            first_seq: 77,
            epoch: 2,
            salt: 0xdead_beef,
        };
        let b = h.encode();
        assert_eq!(SegmentHeader::decode(&b), Ok(h));
        for i in 0..HEADER_LEN {
            let mut c = b;
            c[i] ^= 0x10;
            assert!(SegmentHeader::decode(&c).is_err(), "flip at {i} accepted");
        }
        let n = segment_file_name(3, 77);
        assert_eq!(n, "00000000000000000003-00000000000000000077.seg");
        assert_eq!(parse_segment_name(&n), Some((3, 77)));
        assert_eq!(parse_segment_name("3-77.seg"), None);
        assert_eq!(parse_segment_name(&format!("{n}.tmp")), None);
    }
}
