//! The artifact inventory at run end: each declared file under the output directory with its
//! size and SHA-256, or nothing when it is not a regular file there.

use crate::host::proto::InventoryEntry;
use sha2::{Digest, Sha256};
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// One entry per declared path, in declaration order. A symlink or a folder counts as not
/// written: only what the script left as a regular file is inventoried.
pub(crate) fn take(output_directory: &Path, declared: &[String]) -> Vec<InventoryEntry> {
    declared
        .iter()
        .map(|path| {
            let found = hash_regular_file(&output_directory.join(path))
                .ok()
                .flatten();
            InventoryEntry {
                path: path.clone(),
                bytes: found.as_ref().map(|(b, _)| *b),
                sha256: found.map(|(_, h)| h),
            }
        })
        .collect()
}

/// `(bytes, sha256 hex)` of a regular file, `None` for anything else.
pub fn hash_regular_file(path: &Path) -> io::Result<Option<(u64, String)>> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e),
    };
    if !meta.file_type().is_file() {
        return Ok(None);
    }
    let mut file = File::open(path)?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut bytes = 0u64;
    loop {
        let n = file.read(&mut buf)?;
        if n == 0 {
            break;
        }
        bytes += n as u64;
        hasher.update(&buf[..n]);
    }
    Ok(Some((bytes, hex(&hasher.finalize()))))
}

/// Lowercase hexadecimal.
pub use rho_plumbing::hex::encode as hex;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inventories_files_and_names_the_missing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        std::fs::write(dir.path().join("sub/a.txt"), b"abc").unwrap();
        std::os::unix::fs::symlink(dir.path().join("sub/a.txt"), dir.path().join("link")).unwrap();
        let inv = take(
            dir.path(),
            &[
                "sub/a.txt".into(),
                "missing.csv".into(),
                "link".into(),
                "sub".into(),
            ],
        );
        assert_eq!(inv[0].bytes, Some(3));
        assert_eq!(
            inv[0].sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        for e in &inv[1..] {
            assert_eq!((e.bytes, e.sha256.as_deref()), (None, None), "{}", e.path);
        }
    }
}
