//! The grant's private connection file (`<state>/agents/<projectId>/<session>.json`): reading it,
//! and the digest that identifies one connection (its token) without keeping the token around.

use std::path::{Path, PathBuf};

use serde::Deserialize;

/// One Agent grant's connection, as written by `rho --grant`.
#[derive(Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Connection {
    /// Always `"2.0"`.
    pub api_version: String,
    /// The service's base URL (`http://127.0.0.1:PORT`); a port change rewrites it.
    pub url: String,
    /// The bearer token. Never logged, never printed.
    pub token: String,
    /// The one project the grant reaches.
    pub project_id: String,
    /// The session name (principal `agent:<session>`).
    pub session: String,
    /// `layered-business` (or absent in older files).
    #[serde(default)]
    pub profile: Option<String>,
    /// RFC 3339 expiry, if any.
    #[serde(default)]
    pub expires_at: Option<String>,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection")
            .field("url", &self.url)
            .field("projectId", &self.project_id)
            .field("session", &self.session)
            .field("token", &"<hidden>")
            .finish()
    }
}

/// Why the connection file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConnectionError {
    /// It cannot be read.
    #[error("cannot read the connection file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// It is not a grant's connection file.
    #[error("{path} is not an Agent connection file: {reason}")]
    Shape {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// Reads and checks the connection file.
pub fn read(path: &Path) -> Result<Connection, ConnectionError> {
    let bytes = std::fs::read(path).map_err(|source| ConnectionError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let shape = |reason: String| ConnectionError::Shape {
        path: path.to_path_buf(),
        reason,
    };
    let conn: Connection = serde_json::from_slice(&bytes).map_err(|e| shape(e.to_string()))?;
    if conn.api_version != "2.0" {
        return Err(shape(format!(
            "apiVersion {:?} (expected \"2.0\")",
            conn.api_version
        )));
    }
    if conn.token.is_empty() || conn.project_id.is_empty() || conn.session.is_empty() {
        return Err(shape("token, projectId and session must be present".into()));
    }
    if !(conn.url.starts_with("http://") || conn.url.starts_with("https://")) {
        return Err(shape(format!("url {:?} is not an HTTP URL", conn.url)));
    }
    Ok(conn)
}

impl Connection {
    /// A digest naming this connection (its credential) for the store; not reversible.
    pub fn identity(&self) -> String {
        rho_plumbing::sha256_hex(
            format!("{}\n{}\n{}", self.project_id, self.session, self.token).as_bytes(),
        )
    }
}

/// Lower-case hex of bytes.
pub use rho_plumbing::hex::encode as hex;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_grant_file_and_hides_the_token() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("s.json");
        std::fs::write(&p, r#"{"apiVersion":"2.0","url":"http://127.0.0.1:1","token":"secret-token","projectId":"p","session":"s","profile":"layered-business","expiresAt":"2030-01-01T00:00:00Z"}"#).unwrap();
        let c = read(&p).unwrap();
        assert_eq!(c.project_id, "p");
        assert!(!format!("{c:?}").contains("secret-token"));
        assert_eq!(c.identity().len(), 64);
    }

    #[test]
    fn refuses_other_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("c.json");
        std::fs::write(
            &p,
            r#"{"apiVersion":"1","url":"http://x","token":"t","projectId":"p","session":"s"}"#,
        )
        .unwrap();
        assert!(matches!(read(&p), Err(ConnectionError::Shape { .. })));
        assert!(matches!(
            read(&dir.path().join("none.json")),
            Err(ConnectionError::Read { .. })
        ));
    }
}
