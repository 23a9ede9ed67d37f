//! Private files of the adapter's store: 0700 folders, 0600 files written temp -> fsync -> rename
//! -> fsync of the folder, and write-once files that are never replaced.

use std::fs;
use std::io;
use std::os::unix::fs::DirBuilderExt;
use std::path::Path;

/// Creates `dir` (and parents) with mode 0700 if missing.
pub fn private_dir(dir: &Path) -> io::Result<()> {
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
}

/// Replaces `path` atomically with `bytes` (0600), durable when this returns.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    rho_plumbing::fs::replace_private(path, bytes)
}

/// Writes `path` once (0600, fsynced with its folder). `AlreadyExists` if it is there. Written
/// under a temporary name first, then linked: a crash never leaves a torn record under the
/// final name, and an existing record is never replaced.
pub fn write_once(path: &Path, bytes: &[u8]) -> io::Result<()> {
    rho_plumbing::fs::write_once(path, bytes, Some(rho_plumbing::fs::PRIVATE))
}

/// Removes `path` durably; a missing file is fine.
pub use rho_plumbing::fs::remove;

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn atomic_and_once_files_are_private() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("store");
        private_dir(&d).unwrap();
        assert_eq!(
            fs::metadata(&d).unwrap().permissions().mode() & 0o777,
            0o700
        );
        let p = d.join("a.json");
        write_atomic(&p, b"1").unwrap();
        write_atomic(&p, b"2").unwrap();
        assert_eq!(fs::read(&p).unwrap(), b"2");
        assert_eq!(
            fs::metadata(&p).unwrap().permissions().mode() & 0o777,
            0o600
        );
        let o = d.join("once.json");
        write_once(&o, b"first").unwrap();
        let again = write_once(&o, b"second").unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::AlreadyExists);
        assert_eq!(fs::read(&o).unwrap(), b"first");
        let leftovers = fs::read_dir(&d)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(leftovers, 0);
        remove(&o).unwrap();
        remove(&o).unwrap();
    }
}
