//! Snapshot files (`journal/snapshots/<seq:020>.snap`): header, opaque state, CRC; atomic writes.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use uuid::Uuid;

use crate::error::JournalError;
use crate::failpoint;
use crate::fsutil;
use crate::header::{u32_at, u64_at};

/// Snapshot folder inside the journal directory.
pub(crate) const DIR_NAME: &str = "snapshots";
const MAGIC: &[u8; 8] = b"RHOJSNP\0";
const VERSION: u32 = 1;
const HEADER: usize = 48;

/// Path of the snapshot of `seq`.
pub(crate) fn path_of(journal_dir: &Path, seq: u64) -> PathBuf {
    journal_dir.join(DIR_NAME).join(format!("{seq:020}.snap"))
}

/// Encodes a snapshot file.
pub(crate) fn encode(project_id: Uuid, seq: u64, state: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(HEADER + state.len() + 4);
    b.extend_from_slice(MAGIC);
    b.extend_from_slice(&VERSION.to_le_bytes());
    b.extend_from_slice(&0u32.to_le_bytes());
    b.extend_from_slice(project_id.as_bytes());
    b.extend_from_slice(&seq.to_le_bytes());
    b.extend_from_slice(&(state.len() as u64).to_le_bytes());
    b.extend_from_slice(state);
    let crc = crc32fast::hash(&b);
    b.extend_from_slice(&crc.to_le_bytes());
    b
}

/// Verifies a snapshot file's bytes; returns (seq, state) or why it is not valid.
pub(crate) fn decode(b: &[u8], project_id: Uuid) -> Result<(u64, &[u8]), String> {
    if b.len() < HEADER + 4 {
        return Err(format!("snapshot file is only {} bytes", b.len()));
    }
    if &b[0..8] != MAGIC {
        return Err("bad snapshot magic".to_string());
    }
    let body = &b[..b.len() - 4];
    if crc32fast::hash(body) != u32_at(b, b.len() - 4) {
        return Err("snapshot checksum mismatch".to_string());
    }
    if u32_at(b, 8) != VERSION {
        return Err(format!("unsupported snapshot version {}", u32_at(b, 8)));
    }
    if b[16..32] != *project_id.as_bytes() {
        return Err("snapshot belongs to another project".to_string());
    }
    let seq = u64_at(b, 32);
    let len = u64_at(b, 40);
    if len != (body.len() - HEADER) as u64 {
        return Err("snapshot length field does not match the file size".to_string());
    }
    Ok((seq, &body[HEADER..]))
}

/// Snapshot files in the journal, by seq named in the file name, ascending. A missing snapshot
/// folder means none.
pub(crate) fn list(journal_dir: &Path) -> Result<Vec<(u64, PathBuf)>, JournalError> {
    let dir = journal_dir.join(DIR_NAME);
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(JournalError::io(format!("listing {}", dir.display()), e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| JournalError::io(format!("listing {}", dir.display()), e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(".snap") else {
            continue;
        };
        if stem.len() == 20 && stem.bytes().all(|c| c.is_ascii_digit()) {
            if let Ok(seq) = stem.parse::<u64>() {
                out.push((seq, entry.path()));
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Loads and verifies one snapshot file; `Ok(Err(reason))` when it is not valid.
pub(crate) fn load(
    path: &Path,
    name_seq: u64,
    project_id: Uuid,
) -> Result<Result<Vec<u8>, String>, JournalError> {
    let bytes = fsutil::read_file(path)?;
    Ok(match decode(&bytes, project_id) {
        Ok((seq, _)) if seq != name_seq => Err(format!(
            "snapshot file name says seq {name_seq}, header says {seq}"
        )),
        Ok((_, state)) => Ok(state.to_vec()),
        Err(why) => Err(why),
    })
}

/// Writes the snapshot of `seq` atomically (creating the snapshot folder, synced, if missing).
pub(crate) fn write(
    journal_dir: &Path,
    project_id: Uuid,
    seq: u64,
    state: &[u8],
) -> Result<(), JournalError> {
    fsutil::create_dirs_synced(&journal_dir.join(DIR_NAME))?;
    let path = path_of(journal_dir, seq);
    fsutil::atomic_write(&path, &encode(project_id, seq, state), || {
        failpoint::point(failpoint::AFTER_SNAPSHOT_WRITE_BEFORE_RENAME)
    })
    .map_err(|e| JournalError::io(format!("writing snapshot {}", path.display()), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_flips() {
        let id = Uuid::new_v4();
        let b = encode(id, 9, b"state!");
        assert_eq!(decode(&b, id), Ok((9, &b"state!"[..])));
        assert!(decode(&b, Uuid::new_v4()).is_err());
        for i in 0..b.len() {
            let mut c = b.clone();
            c[i] ^= 1;
            assert!(decode(&c, id).is_err(), "flip at {i} accepted");
        }
        for cut in 0..b.len() {
            assert!(decode(&b[..cut], id).is_err());
        }
    }
}
