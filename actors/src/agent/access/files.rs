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

/// Writes `bytes` privately: missing folders 0700, then the durable 0600 replace of
/// `rho_plumbing::fs` (temp, fsync, rename, directory fsync; the temp removed on failure).
pub(super) fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)?;
    rho_plumbing::fs::replace_private(path, bytes)
}

/// Removes a revoked grant's file durably; a missing file is fine, a failure is logged.
pub(super) fn remove(path: &Path) {
    if let Err(e) = rho_plumbing::fs::remove(path) {
        tracing::warn!(file = %path.display(), error = %e, "could not remove a revoked Agent connection file");
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
