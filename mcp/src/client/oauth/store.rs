//! The OAuth credential store: one 0600 JSON file in Rho's state, keyed by server identity,
//! with a file lock held around token refresh. Tokens never leave this file except on the wire.
//! DPoP keys (the private keys DPoP-bound tokens are bound to) live in a sibling 0600 file,
//! `mcp-dpop-keys.json`, keyed the same way.

use std::collections::BTreeMap;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;

use rmcp::transport::auth::{
    AuthError, CredentialRefreshGuard, CredentialStore, StoredCredentials,
};
use serde_json::Value;

/// Credentials of one server in the shared file.
#[derive(Debug, Clone)]
pub struct FileCredentialStore {
    path: PathBuf,
    server: String,
}

impl FileCredentialStore {
    /// The store for `server` in the file at `path` (e.g. `<home>/state/mcp-credentials.json`).
    pub fn new(path: PathBuf, server: &str) -> Self {
        Self {
            path,
            server: server.to_owned(),
        }
    }

    fn read_all(&self) -> Result<BTreeMap<String, Value>, AuthError> {
        read_map(&self.path)
    }

    fn write_all(&self, map: &BTreeMap<String, Value>) -> Result<(), AuthError> {
        write_map(&self.path, map)
    }
}

pub(crate) fn read_map(path: &std::path::Path) -> Result<BTreeMap<String, Value>, AuthError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice(&bytes)
            .map_err(|e| AuthError::InternalError(format!("credential store is unreadable: {e}"))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(BTreeMap::new()),
        Err(e) => Err(AuthError::InternalError(format!("credential store: {e}"))),
    }
}

pub(crate) fn write_map(
    path: &std::path::Path,
    map: &BTreeMap<String, Value>,
) -> Result<(), AuthError> {
    let io = |e: std::io::Error| AuthError::InternalError(format!("credential store: {e}"));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let bytes = serde_json::to_vec_pretty(map)
        .map_err(|e| AuthError::InternalError(format!("credential store: {e}")))?;
    rho_plumbing::fs::replace_private(path, &bytes).map_err(io)
}

/// The DPoP key file next to the credential file at `credentials`.
fn dpop_path(credentials: &std::path::Path) -> PathBuf {
    credentials.with_file_name("mcp-dpop-keys.json")
}

/// The stored DPoP key of `server` (PKCS#8 DER) and the token endpoint it was made for.
pub(super) fn load_dpop_key(
    credentials: &std::path::Path,
    server: &str,
) -> Result<Option<(Vec<u8>, String)>, AuthError> {
    use base64::Engine;
    let map = read_map(&dpop_path(credentials))?;
    let Some(entry) = map.get(server) else {
        return Ok(None);
    };
    let pkcs8 = entry["pkcs8"]
        .as_str()
        .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok());
    let endpoint = entry["token_endpoint"].as_str();
    Ok(pkcs8.zip(endpoint.map(str::to_owned)))
}

/// Stores `server`'s DPoP key (0600, replaced atomically).
pub(super) fn save_dpop_key(
    credentials: &std::path::Path,
    server: &str,
    pkcs8: &[u8],
    token_endpoint: &str,
) -> Result<(), AuthError> {
    use base64::Engine;
    let path = dpop_path(credentials);
    let mut map = read_map(&path)?;
    map.insert(
        server.to_owned(),
        serde_json::json!({
            "pkcs8": base64::engine::general_purpose::STANDARD.encode(pkcs8),
            "token_endpoint": token_endpoint,
        }),
    );
    write_map(&path, &map)
}

#[async_trait::async_trait]
impl CredentialStore for FileCredentialStore {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        let mut map = self.read_all()?;
        match map.remove(&self.server) {
            None => Ok(None),
            Some(v) => serde_json::from_value(v)
                .map(Some)
                .map_err(|e| AuthError::InternalError(format!("credential store entry: {e}"))),
        }
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        let mut map = self.read_all()?;
        let v = serde_json::to_value(&credentials)
            .map_err(|e| AuthError::InternalError(format!("credential store: {e}")))?;
        map.insert(self.server.clone(), v);
        self.write_all(&map)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        let mut map = self.read_all()?;
        if map.remove(&self.server).is_some() {
            self.write_all(&map)?;
        }
        Ok(())
    }

    async fn acquire_refresh_guard(&self) -> Result<Option<CredentialRefreshGuard>, AuthError> {
        let lock_path = self.path.with_extension("lock");
        let guard = tokio::task::spawn_blocking(move || -> std::io::Result<std::fs::File> {
            if let Some(dir) = lock_path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let f = std::fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .mode(0o600)
                .open(&lock_path)?;
            fs2::FileExt::lock_exclusive(&f)?;
            Ok(f)
        })
        .await
        .map_err(|e| AuthError::InternalError(format!("credential lock: {e}")))?
        .map_err(|e| AuthError::InternalError(format!("credential lock: {e}")))?;
        Ok(Some(CredentialRefreshGuard::new(guard)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[tokio::test]
    async fn saves_per_server_with_0600() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("state/mcp-credentials.json");
        let a = FileCredentialStore::new(path.clone(), "a");
        let b = FileCredentialStore::new(path.clone(), "b");
        a.save(StoredCredentials::new(
            "client-a".into(),
            None,
            vec![],
            None,
        ))
        .await
        .unwrap();
        b.save(StoredCredentials::new(
            "client-b".into(),
            None,
            vec![],
            None,
        ))
        .await
        .unwrap();
        assert_eq!(a.load().await.unwrap().unwrap().client_id, "client-a");
        assert_eq!(
            std::fs::metadata(&path).unwrap().permissions().mode() & 0o777,
            0o600
        );
        a.clear().await.unwrap();
        assert!(a.load().await.unwrap().is_none());
        assert_eq!(b.load().await.unwrap().unwrap().client_id, "client-b");
        let g = a.acquire_refresh_guard().await.unwrap();
        assert!(g.is_some());
    }

    #[test]
    fn dpop_keys_round_trip_in_a_private_file_beside_the_credentials() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let creds = dir.path().join("state/mcp-credentials.json");
        assert_eq!(load_dpop_key(&creds, "a").unwrap(), None);
        save_dpop_key(&creds, "a", b"der-a", "https://as/token").unwrap();
        save_dpop_key(&creds, "b", b"der-b", "https://as2/token").unwrap();
        assert_eq!(
            load_dpop_key(&creds, "a").unwrap(),
            Some((b"der-a".to_vec(), "https://as/token".to_owned()))
        );
        let file = dir.path().join("state/mcp-dpop-keys.json");
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
