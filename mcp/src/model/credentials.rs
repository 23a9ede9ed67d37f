//! The model key: a value that never prints, and where it is read from (the environment
//! variable the config names, or Rho's 0600 credential store under `model:<provider>`, the
//! same file MCP OAuth tokens use; `:` is never in a server identity, so the entries never meet).

use std::path::{Path, PathBuf};

use super::config::{KeySource, ModelConfig, ModelSetupError};

/// A provider key. Its `Debug` shows nothing of it.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKey(String);

impl ApiKey {
    /// Wraps a key.
    pub fn new(key: impl Into<String>) -> Self {
        Self(key.into())
    }

    /// The key itself, for the one header that carries it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ApiKey(..)")
    }
}

/// Rho's credential file (`<home>/state/mcp-credentials.json`, 0600).
pub fn store_path(home: &Path) -> PathBuf {
    home.join("state").join("mcp-credentials.json")
}

fn entry(provider: &str) -> String {
    format!("model:{provider}")
}

/// Stores `key` for `provider` in the credential file (0600, replaced atomically).
pub fn store_key(home: &Path, provider: &str, key: &ApiKey) -> Result<(), String> {
    let path = store_path(home);
    let mut map = crate::client::oauth::store::read_map(&path).map_err(|e| e.to_string())?;
    map.insert(
        entry(provider),
        serde_json::json!({"api_key": key.expose()}),
    );
    crate::client::oauth::store::write_map(&path, &map).map_err(|e| e.to_string())
}

/// The stored key of `provider`, if any.
pub fn stored_key(home: &Path, provider: &str) -> Result<Option<ApiKey>, String> {
    let map =
        crate::client::oauth::store::read_map(&store_path(home)).map_err(|e| e.to_string())?;
    Ok(map
        .get(&entry(provider))
        .and_then(|v| v["api_key"].as_str())
        .filter(|k| !k.is_empty())
        .map(ApiKey::new))
}

/// The key the config asks for, read now: `Ok(None)` for `api_key = "none"`; a key that is not
/// there names where it was looked for.
pub fn resolve_key(cfg: &ModelConfig, home: &Path) -> Result<Option<ApiKey>, ModelSetupError> {
    match &cfg.key {
        KeySource::None => Ok(None),
        KeySource::Env(var) => match std::env::var(var) {
            Ok(v) if !v.trim().is_empty() => Ok(Some(ApiKey::new(v.trim()))),
            _ => Err(ModelSetupError::Missing {
                missing: vec![format!(
                    "the environment variable {var} ([model] api_key = \"env:{var}\")"
                )],
            }),
        },
        KeySource::Store => match stored_key(home, &cfg.provider) {
            Ok(Some(k)) => Ok(Some(k)),
            Ok(None) => Err(ModelSetupError::Missing {
                missing: vec![format!(
                    "an API key for {} in Rho's credential store {} (or set [model] api_key = \"env:NAME\")",
                    cfg.provider,
                    store_path(home).display()
                )],
            }),
            Err(e) => Err(ModelSetupError::File(e)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn keys_round_trip_in_the_private_store_and_never_print() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(stored_key(dir.path(), "anthropic").unwrap(), None);
        store_key(dir.path(), "anthropic", &ApiKey::new("sk-secret")).unwrap();
        let k = stored_key(dir.path(), "anthropic").unwrap().unwrap();
        assert_eq!(k.expose(), "sk-secret");
        assert!(!format!("{k:?}").contains("secret"));
        let mode = std::fs::metadata(store_path(dir.path()))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
