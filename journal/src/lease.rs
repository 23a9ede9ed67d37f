//! The writer lease (`<project>/.rho/lease`): an exclusive fs2 lock held for the writer's life,
//! with the holder's description written inside for refusal messages.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::error::IoFailure;
use crate::fsutil;

/// Why the lease could not be taken.
#[derive(Clone, Debug, thiserror::Error)]
pub enum LeaseError {
    /// Another process holds the lease.
    #[error("the project is held by another writer: {holder}")]
    Held {
        /// The holder's own description (e.g. `pid 123 at http://127.0.0.1:5000`).
        holder: String,
    },
    /// The lease file could not be opened, locked or written.
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        source: IoFailure,
    },
}

fn io_err(context: &str, path: &Path, e: io::Error) -> LeaseError {
    LeaseError::Io {
        context: format!("{context} {}", path.display()),
        source: IoFailure::from(&e),
    }
}

/// An exclusive lease on a project; released when dropped (or when the process dies).
#[derive(Debug)]
pub struct WriterLease {
    file: File,
    path: PathBuf,
    holder: String,
}

impl WriterLease {
    /// Takes the lease at `path`, creating the file if missing, and writes `holder` into it.
    /// If another process holds it: `LeaseError::Held` with the text that process wrote.
    pub fn acquire(path: &Path, holder: &str) -> Result<WriterLease, LeaseError> {
        let existed = path.exists();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io_err("opening lease", path, e))?;
        if !existed {
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                fsutil::sync_dir(dir).map_err(|e| io_err("syncing directory of lease", path, e))?;
            }
        }
        if let Err(e) = fs2::FileExt::try_lock_exclusive(&file) {
            if e.kind() == fs2::lock_contended_error().kind()
                || e.kind() == io::ErrorKind::WouldBlock
            {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(LeaseError::Held {
                    holder: text.trim().to_string(),
                });
            }
            return Err(io_err("locking lease", path, e));
        }
        file.set_len(0)
            .and_then(|()| {
                use std::os::unix::fs::FileExt;
                file.write_all_at(holder.as_bytes(), 0)
            })
            .and_then(|()| file.flush())
            .and_then(|()| file.sync_all())
            .map_err(|e| io_err("writing lease", path, e))?;
        Ok(WriterLease {
            file,
            path: path.to_path_buf(),
            holder: holder.to_string(),
        })
    }

    /// Whether some process (this one included, through another handle) holds the lease at
    /// `path`. Never creates the file; false if it is absent. Probes with a momentary shared lock.
    pub fn is_held(path: &Path) -> bool {
        let Ok(file) = File::open(path) else {
            return false;
        };
        match fs2::FileExt::try_lock_shared(&file) {
            Ok(()) => {
                let _ = fs2::FileExt::unlock(&file);
                false
            }
            Err(_) => true,
        }
    }

    /// The lease file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The holder text written into the lease.
    pub fn holder(&self) -> &str {
        &self.holder
    }
}

impl Drop for WriterLease {
    fn drop(&mut self) {
        let _ = fs2::FileExt::unlock(&self.file);
    }
}
