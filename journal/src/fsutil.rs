//! The journal's file-system steps over `rho-plumbing`: atomic replace, synced mkdir, whole reads.

use std::fs;
use std::io;
use std::path::Path;

use crate::error::JournalError;

/// Creates `dir` and every missing ancestor, fsyncing each new directory into its parent.
pub(crate) fn create_dirs_synced(dir: &Path) -> Result<(), JournalError> {
    rho_plumbing::fs::create_dirs(dir)
        .map_err(|e| JournalError::io(format!("{} {}", e.step, e.path.display()), e.source))
}

/// Writes `bytes` to `path` atomically (temp, fsync, rename, directory fsync; the temp is
/// removed on failure). `before_rename` runs after the temp file is durable and before the
/// rename (a fail point).
pub(crate) fn atomic_write(path: &Path, bytes: &[u8], before_rename: fn()) -> io::Result<()> {
    rho_plumbing::fs::replace_with(path, bytes, None, || {
        before_rename();
        Ok::<(), std::convert::Infallible>(())
    })
    .map_err(|e| match e {
        rho_plumbing::fs::ReplaceError::Io(e) => e,
        rho_plumbing::fs::ReplaceError::Refused(never) => match never {},
    })
}

/// Reads a whole file, mapping NotFound to `JournalError::NotFound`.
pub(crate) fn read_file(path: &Path) -> Result<Vec<u8>, JournalError> {
    fs::read(path).map_err(|e| {
        if e.kind() == io::ErrorKind::NotFound {
            JournalError::NotFound {
                path: path.to_path_buf(),
            }
        } else {
            JournalError::io(format!("reading {}", path.display()), e)
        }
    })
}

pub(crate) use rho_plumbing::fs::sync_dir;
