//! The disk side of buffers: reading a file to open it, its current digest, and the atomic save.

use crate::error::ActorError;
use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

/// Hex SHA-256 of bytes.
pub fn digest(bytes: &[u8]) -> String {
    rho_plumbing::sha256_hex(bytes)
}

/// The file a project-relative path names: inside the project, not through a symlink, not `.rho`.
pub fn target(project: &Path, rel: &str) -> Result<(String, PathBuf), ActorError> {
    let parts = crate::paths::components("path", rel)?;
    if parts.is_empty() {
        return Err(ActorError::invalid("path", "name a file in the project"));
    }
    let root = project
        .canonicalize()
        .map_err(|e| ActorError::unavailable(e.to_string()))?;
    let mut path = root.clone();
    for (i, p) in parts.iter().enumerate() {
        path.push(p);
        if let Ok(meta) = fs::symlink_metadata(&path) {
            if meta.file_type().is_symlink() {
                return Err(ActorError::invalid(
                    "path",
                    "the path goes through a symlink; open the file it points to",
                ));
            }
            if i + 1 < parts.len() && !meta.is_dir() {
                return Err(ActorError::invalid(
                    "path",
                    "a parent of the path is not a folder",
                ));
            }
        }
    }
    Ok((parts.join("/"), path))
}

/// Reads a file to open it: UTF-8 (the offset of the first invalid byte otherwise), at most `max` bytes.
/// `Ok(None)` when the file does not exist.
pub fn read(path: &Path, max: u64) -> Result<Option<(String, String)>, ActorError> {
    let meta = match fs::metadata(path) {
        Ok(m) => m,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(ActorError::unavailable(format!("reading the file: {e}"))),
    };
    if !meta.is_file() {
        return Err(ActorError::invalid("path", "not a regular file"));
    }
    if meta.len() > max {
        return Err(ActorError::Limit {
            limit: "documents.maxBufferBytes".into(),
            value: max,
        });
    }
    let bytes =
        fs::read(path).map_err(|e| ActorError::unavailable(format!("reading the file: {e}")))?;
    let d = digest(&bytes);
    match String::from_utf8(bytes) {
        Ok(text) => Ok(Some((text, d))),
        Err(e) => Err(ActorError::Invalid {
            field: Some("path".into()),
            index: Some(e.utf8_error().valid_up_to() as u64),
            reason: format!(
                "the file is not UTF-8: the first invalid sequence is at byte {}",
                e.utf8_error().valid_up_to()
            ),
        }),
    }
}

/// The file's digest now; `None` when it does not exist.
pub fn disk_digest(path: &Path) -> Result<Option<String>, ActorError> {
    match fs::read(path) {
        Ok(b) => Ok(Some(digest(&b))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ActorError::unavailable(format!("reading the file: {e}"))),
    }
}

/// The temp file a save of `path` writes (one per process).
fn temp_name(path: &Path, pid: u32) -> Option<PathBuf> {
    let name = path.file_name()?.to_string_lossy().into_owned();
    Some(path.with_file_name(format!(".{name}.rho-save-{pid}")))
}

/// Removes temp files left by saves that a crash interrupted.
pub fn remove_stale_temps(path: &Path) {
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return;
    };
    let prefix = format!(".{}.rho-save-", name.to_string_lossy());
    for e in fs::read_dir(dir).into_iter().flatten().flatten() {
        if e.file_name().to_string_lossy().starts_with(&prefix) {
            let _ = fs::remove_file(e.path());
        }
    }
}

/// Replaces `path` with `text`: temp file (keeping the file's mode), fsync, a last check that the
/// disk still holds `expected` (the digest checked before the intent), rename, directory fsync.
/// The original file is untouched unless the rename happened.
pub fn replace(path: &Path, text: &str, expected: &Option<String>) -> Result<String, ActorError> {
    let dir = path
        .parent()
        .ok_or_else(|| ActorError::invalid("path", "no parent folder"))?;
    let mode = fs::metadata(path)
        .map(|m| m.permissions().mode() & 0o7777)
        .unwrap_or(0o644);
    let tmp = temp_name(path, std::process::id())
        .ok_or_else(|| ActorError::invalid("path", "no file name"))?;
    let io = |e: io::Error| ActorError::unavailable(format!("saving: {e}"));
    let written = (|| -> io::Result<()> {
        let mut f = OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .mode(mode)
            .open(&tmp)?;
        f.write_all(text.as_bytes())?;
        f.set_permissions(fs::Permissions::from_mode(mode))?;
        f.sync_all()
    })();
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(io(e));
    }
    // Fault injection (feature `failpoints`): `return(abort)` crashes here, `return` fails the save.
    fail::fail_point!("documents::after_temp_write_before_rename", |arg| {
        if arg.as_deref() == Some("abort") {
            std::process::abort();
        }
        let _ = fs::remove_file(&tmp);
        Err(ActorError::unavailable("injected failure before rename"))
    });
    let now = disk_digest(path)?;
    if &now != expected {
        let _ = fs::remove_file(&tmp);
        return Err(ActorError::DiskChanged {
            reason: "the file changed on disk while saving; nothing was written".into(),
            base_digest: expected.clone(),
            disk_digest: now,
        });
    }
    fs::rename(&tmp, path).map_err(|e| {
        let _ = fs::remove_file(&tmp);
        io(e)
    })?;
    rho_plumbing::fs::sync_dir(dir).map_err(io)?;
    Ok(digest(text.as_bytes()))
}
