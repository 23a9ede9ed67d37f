//! Record frames: encoding one record to bytes and decoding/verifying it back (zero-copy view).
//!
//! Layout (little-endian), see `FORMAT.md`:
//! `u32 body_len | u32 crc32(salt, segment, body) | body | zero padding to 8 bytes`.

use std::fmt;

use uuid::Uuid;

use crate::header::{u32_at, u64_at};
use crate::types::{EntityRef, NewRecord, Record};

/// Bytes before the body: length and CRC.
pub(crate) const PREFIX: usize = 8;
/// Fixed-width part of the body.
pub(crate) const BODY_FIXED: usize = 72;
/// Longest entity kind.
pub(crate) const MAX_ENTITY_KIND: usize = 32;
/// Longest event kind.
pub(crate) const MAX_EVENT_KIND: usize = 64;
/// Smallest possible frame (one-byte entity and event kinds).
pub(crate) const MIN_FRAME: usize = align8(PREFIX + BODY_FIXED + 2);

const FLAG_CHANGE_ID: u8 = 1;
/// Set on the last frame of a write: a write without it at the tail is incomplete.
const FLAG_WRITE_END: u8 = 2;

/// Rounds up to a multiple of 8.
pub(crate) const fn align8(n: usize) -> usize {
    (n + 7) & !7
}

impl NewRecord {
    /// Bytes this record occupies in a segment (its frame: header, body and padding).
    pub fn frame_bytes(&self) -> usize {
        frame_len(self)
    }
}

/// Frame size of a record (padding included).
pub(crate) fn frame_len(r: &NewRecord) -> usize {
    align8(
        PREFIX
            + BODY_FIXED
            + r.entity.kind.len()
            + r.kind.len()
            + r.principal.len()
            + r.change_id.as_ref().map_or(0, |c| c.len())
            + r.payload.len(),
    )
}

/// Checks the shape rules of a record that the frame format relies on.
pub(crate) fn validate(r: &NewRecord) -> Result<(), String> {
    let ek = &r.entity.kind;
    if ek.is_empty() || ek.len() > MAX_ENTITY_KIND || !ek.bytes().all(|c| c.is_ascii_graphic()) {
        return Err(format!(
            "entity kind {ek:?} must be 1..={MAX_ENTITY_KIND} ASCII graphic characters"
        ));
    }
    if r.kind.is_empty() || r.kind.len() > MAX_EVENT_KIND {
        return Err(format!(
            "event kind {:?} must be 1..={MAX_EVENT_KIND} bytes",
            r.kind
        ));
    }
    Ok(())
}

/// Seq fields that the writer stamps on a record.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stamp {
    pub(crate) seq: u64,
    /// First seq of the write (group commit) this frame is part of.
    pub(crate) write_first_seq: u64,
    pub(crate) entity_seq: u64,
    pub(crate) epoch: u64,
    /// This is the last frame of its write.
    pub(crate) write_end: bool,
}

/// Appends the frame of `r` to `out`. The caller has validated `r`.
pub(crate) fn encode_into(out: &mut Vec<u8>, salt: u64, segment: u64, st: Stamp, r: &NewRecord) {
    let start = out.len();
    let change = r.change_id.as_deref().unwrap_or("");
    out.extend_from_slice(&[0u8; PREFIX]);
    out.extend_from_slice(&st.seq.to_le_bytes());
    out.extend_from_slice(&st.write_first_seq.to_le_bytes());
    out.extend_from_slice(&st.entity_seq.to_le_bytes());
    out.extend_from_slice(&st.epoch.to_le_bytes());
    out.extend_from_slice(&r.time_ms.to_le_bytes());
    out.extend_from_slice(r.entity.id.as_bytes());
    out.push(r.codec);
    out.push(r.entity.kind.len() as u8);
    out.push(r.kind.len() as u8);
    let mut flags = if r.change_id.is_some() {
        FLAG_CHANGE_ID
    } else {
        0
    };
    if st.write_end {
        flags |= FLAG_WRITE_END;
    }
    out.push(flags);
    out.extend_from_slice(&(r.principal.len() as u32).to_le_bytes());
    out.extend_from_slice(&(change.len() as u32).to_le_bytes());
    out.extend_from_slice(&(r.payload.len() as u32).to_le_bytes());
    out.extend_from_slice(r.entity.kind.as_bytes());
    out.extend_from_slice(r.kind.as_bytes());
    out.extend_from_slice(r.principal.as_bytes());
    out.extend_from_slice(change.as_bytes());
    out.extend_from_slice(&r.payload);
    let body_len = out.len() - start - PREFIX;
    let mut h = crc32fast::Hasher::new();
    h.update(&salt.to_le_bytes());
    h.update(&segment.to_le_bytes());
    h.update(&out[start + PREFIX..]);
    let crc = h.finalize();
    out[start..start + 4].copy_from_slice(&(body_len as u32).to_le_bytes());
    out[start + 4..start + 8].copy_from_slice(&crc.to_le_bytes());
    let padded = align8(out.len() - start);
    out.resize(start + padded, 0);
}

/// Why bytes at an offset are not a valid frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum FrameError {
    /// Fewer bytes left than a frame needs (an incomplete frame).
    Incomplete { needed: usize, available: usize },
    /// The length field is impossible (too small, or above the maximum record size).
    BadLength(u32),
    /// The CRC does not match.
    Checksum,
    /// CRC matched but the body is inconsistent.
    Malformed(&'static str),
}

impl fmt::Display for FrameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FrameError::Incomplete { needed, available } => write!(
                f,
                "incomplete frame: needs {needed} bytes, {available} left in the file"
            ),
            FrameError::BadLength(n) => write!(f, "impossible frame length {n}"),
            FrameError::Checksum => write!(f, "frame checksum mismatch"),
            FrameError::Malformed(why) => write!(f, "malformed frame: {why}"),
        }
    }
}

/// A verified frame borrowed from a buffer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FrameView<'a> {
    pub(crate) seq: u64,
    pub(crate) write_first_seq: u64,
    pub(crate) entity_seq: u64,
    pub(crate) epoch: u64,
    /// Last frame of its write.
    pub(crate) write_end: bool,
    pub(crate) time_ms: i64,
    pub(crate) entity_id: Uuid,
    pub(crate) codec: u8,
    pub(crate) entity_kind: &'a str,
    pub(crate) kind: &'a str,
    pub(crate) principal: &'a str,
    pub(crate) change_id: Option<&'a str>,
    pub(crate) payload: &'a [u8],
    /// Whole frame length, padding included.
    pub(crate) len: usize,
}

impl FrameView<'_> {
    /// Copies the view into an owned `Record` at (segment, offset).
    pub(crate) fn to_record(self, segment: u64, offset: u64) -> Record {
        Record {
            seq: self.seq,
            segment,
            offset,
            bytes: self.len as u32,
            epoch: self.epoch,
            write_end: self.write_end,
            entity: EntityRef {
                kind: self.entity_kind.to_string(),
                id: self.entity_id,
            },
            entity_seq: self.entity_seq,
            time_ms: self.time_ms,
            principal: self.principal.to_string(),
            change_id: self.change_id.map(str::to_string),
            kind: self.kind.to_string(),
            codec: self.codec,
            payload: self.payload.to_vec(),
        }
    }
}

/// Reads the seq field of a would-be frame at `pos` without verifying anything.
pub(crate) fn peek_seq(buf: &[u8], pos: usize) -> Option<u64> {
    (pos + PREFIX + 8 <= buf.len()).then(|| u64_at(buf, pos + PREFIX))
}

/// Decodes and verifies the frame at `buf[pos..]`. The length is never trusted beyond the
/// buffer end or `max_frame`.
pub(crate) fn decode(
    buf: &[u8],
    pos: usize,
    salt: u64,
    segment: u64,
    max_frame: usize,
) -> Result<FrameView<'_>, FrameError> {
    let available = buf.len().saturating_sub(pos);
    if available < PREFIX {
        return Err(FrameError::Incomplete {
            needed: PREFIX,
            available,
        });
    }
    let body_len = u32_at(buf, pos);
    let total = align8(PREFIX + body_len as usize);
    if (body_len as usize) < BODY_FIXED + 2 || total > max_frame {
        return Err(FrameError::BadLength(body_len));
    }
    if total > available {
        return Err(FrameError::Incomplete {
            needed: total,
            available,
        });
    }
    let crc = u32_at(buf, pos + 4);
    let body = &buf[pos + PREFIX..pos + PREFIX + body_len as usize];
    let mut h = crc32fast::Hasher::new();
    h.update(&salt.to_le_bytes());
    h.update(&segment.to_le_bytes());
    h.update(body);
    if h.finalize() != crc {
        return Err(FrameError::Checksum);
    }
    if buf[pos + PREFIX + body_len as usize..pos + total]
        .iter()
        .any(|&b| b != 0)
    {
        return Err(FrameError::Malformed("non-zero padding"));
    }
    parse_body(body, total)
}

fn parse_body(body: &[u8], total: usize) -> Result<FrameView<'_>, FrameError> {
    let ek_len = body[57] as usize;
    let k_len = body[58] as usize;
    let flags = body[59];
    let p_len = u32_at(body, 60) as usize;
    let c_len = u32_at(body, 64) as usize;
    let pl_len = u32_at(body, 68) as usize;
    if flags & !(FLAG_CHANGE_ID | FLAG_WRITE_END) != 0 {
        return Err(FrameError::Malformed("unknown flags"));
    }
    if flags & FLAG_CHANGE_ID == 0 && c_len != 0 {
        return Err(FrameError::Malformed(
            "change id bytes without change id flag",
        ));
    }
    let sum = [ek_len, k_len, p_len, c_len, pl_len]
        .iter()
        .try_fold(BODY_FIXED, |acc, &n| acc.checked_add(n));
    if sum != Some(body.len()) {
        return Err(FrameError::Malformed(
            "field lengths do not add up to the body",
        ));
    }
    let mut at = BODY_FIXED;
    let mut take = |n: usize| {
        let s = &body[at..at + n];
        at += n;
        s
    };
    let ek = take(ek_len);
    let k = take(k_len);
    let p = take(p_len);
    let c = take(c_len);
    let payload = take(pl_len);
    let entity_kind = std::str::from_utf8(ek).map_err(|_| FrameError::Malformed("entity kind"))?;
    if ek_len == 0 || ek_len > MAX_ENTITY_KIND || !ek.iter().all(u8::is_ascii_graphic) {
        return Err(FrameError::Malformed("entity kind"));
    }
    let kind = std::str::from_utf8(k).map_err(|_| FrameError::Malformed("event kind"))?;
    if k_len == 0 || k_len > MAX_EVENT_KIND {
        return Err(FrameError::Malformed("event kind"));
    }
    let principal = std::str::from_utf8(p).map_err(|_| FrameError::Malformed("principal"))?;
    let change = std::str::from_utf8(c).map_err(|_| FrameError::Malformed("change id"))?;
    let mut id = [0u8; 16];
    id.copy_from_slice(&body[40..56]);
    Ok(FrameView {
        seq: u64_at(body, 0),
        write_first_seq: u64_at(body, 8),
        write_end: flags & FLAG_WRITE_END != 0,
        entity_seq: u64_at(body, 16),
        epoch: u64_at(body, 24),
        time_ms: u64_at(body, 32) as i64,
        entity_id: Uuid::from_bytes(id),
        codec: body[56],
        entity_kind,
        kind,
        principal,
        change_id: (flags & FLAG_CHANGE_ID != 0).then_some(change),
        payload,
        len: total,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn rec(kind: &str, principal: &str, change: Option<&str>, payload: Vec<u8>) -> NewRecord {
        NewRecord {
            entity: EntityRef {
                kind: kind.to_string(),
                id: Uuid::from_u128(7),
            },
            time_ms: -5,
            principal: principal.to_string(),
            change_id: change.map(str::to_string),
            kind: "doc.created".to_string(),
            codec: 3,
            payload,
        }
    }

    proptest! {
        #[test]
        fn round_trip(
            kind in "[a-z.]{1,32}",
            principal in ".{0,40}",
            change in proptest::option::of(".{0,20}"),
            payload in proptest::collection::vec(any::<u8>(), 0..300),
            seq in 1u64..u64::MAX, salt in any::<u64>(), segment in any::<u64>(),
            time in any::<i64>(),
        ) {
            let mut r = rec(&kind, &principal, change.as_deref(), payload);
            r.time_ms = time;
            let st = Stamp { seq, write_first_seq: seq, entity_seq: 9, epoch: 4, write_end: true };
            let mut out = vec![1, 2, 3];
            encode_into(&mut out, salt, segment, st, &r);
            prop_assert_eq!(out.len() - 3, frame_len(&r));
            let mut buf = out[3..].to_vec();
            let v = decode(&buf, 0, salt, segment, 1 << 20).expect("decodes");
            let back = v.to_record(segment, 0);
            prop_assert_eq!(back.seq, seq);
            prop_assert_eq!(back.entity, r.entity.clone());
            prop_assert_eq!(back.entity_seq, 9);
            prop_assert_eq!(back.epoch, 4);
            prop_assert_eq!(back.time_ms, time);
            prop_assert_eq!(&back.principal, &r.principal);
            prop_assert_eq!(&back.change_id, &r.change_id);
            prop_assert_eq!(&back.kind, &r.kind);
            prop_assert_eq!(back.codec, 3);
            prop_assert_eq!(&back.payload, &r.payload);
            prop_assert_eq!(back.bytes as usize, buf.len());
            // Wrong salt or segment never verifies.
            prop_assert!(decode(&buf, 0, salt ^ 1, segment, 1 << 20).is_err());
            prop_assert!(decode(&buf, 0, salt, segment ^ 1, 1 << 20).is_err());
            // Every truncation is incomplete, never a valid frame.
            for cut in 0..buf.len() {
                prop_assert!(decode(&buf[..cut], 0, salt, segment, 1 << 20).is_err());
            }
            // A single bit flip anywhere is detected.
            let n = buf.len() * 8;
            for bit in (0..n).step_by(7) {
                buf[bit / 8] ^= 1 << (bit % 8);
                prop_assert!(decode(&buf, 0, salt, segment, 1 << 20).is_err(), "bit {} accepted", bit);
                buf[bit / 8] ^= 1 << (bit % 8);
            }
        }
    }

    #[test]
    fn length_is_not_trusted() {
        let r = rec("doc", "p", None, vec![0; 100]);
        let mut out = Vec::new();
        let st = Stamp {
            seq: 1,
            write_first_seq: 1,
            entity_seq: 1,
            epoch: 1,
            write_end: true,
        };
        encode_into(&mut out, 1, 0, st, &r);
        assert!(matches!(
            decode(&out, 0, 1, 0, 64),
            Err(FrameError::BadLength(_))
        ));
        out[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            decode(&out, 0, 1, 0, usize::MAX),
            Err(FrameError::Incomplete { .. }) | Err(FrameError::BadLength(_))
        ));
        assert!(validate(&rec("", "p", None, vec![])).is_err());
        assert!(validate(&rec("a b", "p", None, vec![])).is_err());
        assert!(validate(&rec(&"x".repeat(33), "p", None, vec![])).is_err());
    }
}
