//! Remembering each server's detected protocol era (per identity and config digest) in Rho's
//! state, so a legacy server is not probed with `server/discover` on every start.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

use serde::{Deserialize, Serialize};

use crate::client::config::ServerConfig;

/// A protocol generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Era {
    /// 2026-07-28 and later (stateless, `server/discover`).
    Modern,
    /// 2025-11-25 and earlier (`initialize`).
    Legacy,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
struct Remembered {
    digest: String,
    era: Era,
}

/// A JSON file `{ "<server id>": {"digest", "era"} }` (written temp -> fsync -> rename -> folder fsync).
#[derive(Debug, Clone)]
pub struct EraStore {
    path: PathBuf,
    lock: Arc<Mutex<()>>,
}

/// The digest of what decides a server's era: its transport settings.
pub fn config_digest(cfg: &ServerConfig) -> String {
    rho_plumbing::sha256_hex(format!("{:?}", cfg.transport).as_bytes())
}

impl EraStore {
    /// A store at `path` (e.g. `<home>/state/mcp-eras.json`).
    pub fn new(path: PathBuf) -> Self {
        Self {
            path,
            lock: Arc::new(Mutex::new(())),
        }
    }

    fn read(&self) -> BTreeMap<String, Remembered> {
        std::fs::read(&self.path)
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    fn write(&self, map: &BTreeMap<String, Remembered>) {
        let result = (|| -> std::io::Result<()> {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let bytes = serde_json::to_vec_pretty(map).unwrap_or_default();
            rho_plumbing::fs::replace(&self.path, &bytes, None)
        })();
        if let Err(e) = result {
            tracing::debug!(target: "rho::mcp", error = %e, "could not remember MCP eras");
        }
    }

    /// The era remembered for this server and config, if any.
    pub fn recall(&self, cfg: &ServerConfig) -> Option<Era> {
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let r = self.read().remove(&cfg.id)?;
        (r.digest == config_digest(cfg)).then_some(r.era)
    }

    /// Remembers the detected era.
    pub fn remember(&self, cfg: &ServerConfig, era: Era) {
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = self.read();
        let entry = Remembered {
            digest: config_digest(cfg),
            era,
        };
        if map.get(&cfg.id) != Some(&entry) {
            map.insert(cfg.id.clone(), entry);
            self.write(&map);
        }
    }

    /// Forgets a server (its remembered era did not work).
    pub fn forget(&self, cfg: &ServerConfig) {
        let _g = self.lock.lock().unwrap_or_else(PoisonError::into_inner);
        let mut map = self.read();
        if map.remove(&cfg.id).is_some() {
            self.write(&map);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::config::{parse_config, EntryState};

    fn cfg(cmd: &str) -> ServerConfig {
        let c = parse_config(
            &format!("[mcp.servers.s]\ntransport = \"stdio\"\ncommand = \"{cmd}\"\n"),
            "t".as_ref(),
        )
        .unwrap();
        match &c.entries[0].state {
            EntryState::Valid(s) => (**s).clone(),
            EntryState::Malformed { .. } => panic!(),
        }
    }

    #[test]
    fn remembered_per_identity_and_digest() {
        let dir = tempfile::tempdir().unwrap();
        let store = EraStore::new(dir.path().join("state/mcp-eras.json"));
        assert_eq!(store.recall(&cfg("a")), None);
        store.remember(&cfg("a"), Era::Legacy);
        assert_eq!(store.recall(&cfg("a")), Some(Era::Legacy));
        assert_eq!(
            store.recall(&cfg("b")),
            None,
            "a changed config probes again"
        );
        store.forget(&cfg("a"));
        assert_eq!(store.recall(&cfg("a")), None);
    }
}
