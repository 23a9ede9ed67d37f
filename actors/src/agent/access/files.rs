//! The private connection files of Agent grants: content, the "still holds its token" check, private (0600) durable writes and removal.
//!
//! Blocking: called on the blocking thread of a grant change, never inside a handler.

use super::super::grants::{rfc3339, token_digest, GrantRecord};
use serde_json::json;
use std::path::Path;

/// Whether the file at `path` still holds the token of `rec`.
pub(super) fn holds(path: &Path, rec: &GrantRecord) -> bool {
    let Ok(bytes) = std::fs::read(path) else {
        return false;
    };
    let Ok(v) = serde_json::from_slice::<serde_json::Value>(&bytes) else {
        return false;
    };
    v["token"]
        .as_str()
        .is_some_and(|t| token_digest(t) == rec.digest)
}

/// Writes `bytes` privately (0600): directories 0700, temp file, fsync, rename, directory fsync.
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    let tmp = dir.join(format!(".{}.tmp", uuid::Uuid::new_v4()));
    {
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
    }
    if let Err(e) = std::fs::rename(&tmp, path) {
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    std::fs::File::open(dir)?.sync_all()
}

/// Removes a revoked grant's file (and fsyncs its folder); a missing file is fine, a failure is logged.
pub(super) fn remove(path: &Path) {
    match std::fs::remove_file(path) {
        Ok(()) => {
            if let Some(dir) = path.parent() {
                let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => {
            tracing::warn!(file = %path.display(), error = %e, "could not remove a revoked Agent connection file")
        }
    }
}

/// The connection file's content (the token appears only here).
pub(super) fn body(url: &str, rec: &GrantRecord, token: &str) -> Vec<u8> {
    let v = json!({
        "apiVersion": "2.0",
        "url": url,
        "token": token,
        "projectId": rec.project_id.to_string(),
        "session": rec.session,
        "profile": rec.profile,
        "expiresAt": rfc3339(rec.expires_ms),
    });
    serde_json::to_vec_pretty(&v).unwrap_or_default()
}
