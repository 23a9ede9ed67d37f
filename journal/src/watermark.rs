//! The durable watermark file (`journal/watermark`): clean flag, project id, seq that must exist,
//! last writer epoch. Replaced atomically; never torn by a crash.

use std::path::Path;

use uuid::Uuid;

use crate::error::JournalError;
use crate::fsutil;
use crate::header::{u32_at, u64_at};

/// File name of the watermark inside the journal directory.
pub(crate) const FILE_NAME: &str = "watermark";
const MAGIC: &[u8; 8] = b"RHOJWMK\0";
const VERSION: u32 = 1;
const LEN: usize = 56;
const FLAG_CLEAN: u32 = 1;

/// The contents of the watermark file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Watermark {
    /// The last writer closed cleanly (its `journal.clean-shutdown` record is `seq`).
    pub clean: bool,
    /// The project the journal belongs to.
    pub project_id: Uuid,
    /// A seq that must exist in the journal (checkpoint, snapshot or clean-shutdown seq).
    pub seq: u64,
    /// The newest writer epoch that was started.
    pub epoch: u64,
}

impl Watermark {
    pub(crate) fn encode(&self) -> [u8; LEN] {
        let mut b = [0u8; LEN];
        b[0..8].copy_from_slice(MAGIC);
        b[8..12].copy_from_slice(&VERSION.to_le_bytes());
        let flags = if self.clean { FLAG_CLEAN } else { 0 };
        b[12..16].copy_from_slice(&flags.to_le_bytes());
        b[16..32].copy_from_slice(self.project_id.as_bytes());
        b[32..40].copy_from_slice(&self.seq.to_le_bytes());
        b[40..48].copy_from_slice(&self.epoch.to_le_bytes());
        let crc = crc32fast::hash(&b[0..48]);
        b[48..52].copy_from_slice(&crc.to_le_bytes());
        b
    }

    pub(crate) fn decode(b: &[u8]) -> Result<Watermark, String> {
        if b.len() != LEN {
            return Err(format!("watermark is {} bytes, expected {LEN}", b.len()));
        }
        if &b[0..8] != MAGIC {
            return Err("bad watermark magic".to_string());
        }
        if crc32fast::hash(&b[0..48]) != u32_at(b, 48) {
            return Err("watermark checksum mismatch".to_string());
        }
        if u32_at(b, 8) != VERSION {
            return Err(format!("unsupported watermark version {}", u32_at(b, 8)));
        }
        let flags = u32_at(b, 12);
        if flags & !FLAG_CLEAN != 0 || b[52..56] != [0; 4] {
            return Err("unknown watermark flags".to_string());
        }
        let mut id = [0u8; 16];
        id.copy_from_slice(&b[16..32]);
        Ok(Watermark {
            clean: flags & FLAG_CLEAN != 0,
            project_id: Uuid::from_bytes(id),
            seq: u64_at(b, 32),
            epoch: u64_at(b, 40),
        })
    }

    /// Reads the watermark of a journal directory: `Ok(Err(reason))` when present but invalid.
    pub(crate) fn read(dir: &Path) -> Result<Result<Watermark, String>, JournalError> {
        match fsutil::read_file(&dir.join(FILE_NAME)) {
            Ok(b) => Ok(Watermark::decode(&b)),
            Err(JournalError::NotFound { .. }) => Ok(Err("watermark file is missing".to_string())),
            Err(e) => Err(e),
        }
    }

    /// Atomically replaces the watermark file (temp, fsync, rename, dir fsync).
    pub(crate) fn write(&self, dir: &Path) -> Result<(), JournalError> {
        fsutil::atomic_write(&dir.join(FILE_NAME), &self.encode(), || {})
            .map_err(|e| JournalError::io(format!("writing watermark in {}", dir.display()), e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_flips() {
        let w = Watermark {
            clean: true,
            project_id: Uuid::new_v4(),
            seq: 42,
            epoch: 3,
        };
        let b = w.encode();
        assert_eq!(Watermark::decode(&b), Ok(w));
        for i in 0..LEN {
            let mut c = b;
            c[i] ^= 4;
            assert!(Watermark::decode(&c).is_err(), "flip at {i} accepted");
        }
    }
}
