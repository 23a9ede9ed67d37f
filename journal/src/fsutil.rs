//! Small durable file-system helpers: directory fsync, atomic file replace, synced mkdir.

use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::error::JournalError;

/// fsyncs a directory so that entries created, renamed or removed in it are durable.
pub(crate) fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Writes `bytes` to `path` atomically: temp file, fsync, rename, directory fsync.
/// `before_rename` runs after the temp file is durable and before the rename (a fail point).
pub(crate) fn atomic_write(path: &Path, bytes: &[u8], before_rename: fn()) -> io::Result<()> {
    let dir = path
        .parent()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "path has no parent"))?;
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut f = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(&tmp)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    drop(f);
    before_rename();
    fs::rename(&tmp, path)?;
    sync_dir(dir)
}

/// Creates `dir` and every missing ancestor, fsyncing each new directory into its parent.
pub(crate) fn create_dirs_synced(dir: &Path) -> Result<(), JournalError> {
    let mut missing = Vec::new();
    let mut cur = Some(dir);
    while let Some(p) = cur {
        if p.as_os_str().is_empty() || p.exists() {
            break;
        }
        missing.push(p.to_path_buf());
        cur = p.parent();
    }
    for p in missing.iter().rev() {
        match fs::create_dir(p) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => {
                return Err(JournalError::io(
                    format!("creating directory {}", p.display()),
                    e,
                ))
            }
        }
        let parent = match p.parent() {
            Some(q) if !q.as_os_str().is_empty() => q.to_path_buf(),
            _ => PathBuf::from("."),
        };
        sync_dir(&parent)
            .map_err(|e| JournalError::io(format!("syncing directory {}", parent.display()), e))?;
    }
    Ok(())
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
