//! The service registry (sled, under `--state-dir`): project id -> canonical path and cached name, grants, pairing links, last port.
//!
//! Only the service's own facts live here (decision 0003); project data never does. Every write
//! is flushed before it is acknowledged.

use serde::{de::DeserializeOwned, Deserialize, Serialize};
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// A registry operation failed.
#[derive(Debug, Clone, thiserror::Error)]
pub enum RegistryError {
    #[error("service registry {path}: {reason}")]
    Open { path: PathBuf, reason: String },
    #[error("service registry: {0}")]
    Store(String),
}

impl From<sled::Error> for RegistryError {
    fn from(e: sled::Error) -> Self {
        RegistryError::Store(e.to_string())
    }
}

/// A registered project.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectRecord {
    pub id: Uuid,
    /// Cached display name (the journal is authoritative).
    pub name: String,
    /// Canonical absolute folder.
    pub path: PathBuf,
}

/// The registry of one service state.
#[derive(Clone)]
pub struct Registry {
    db: sled::Db,
    projects: sled::Tree,
    meta: sled::Tree,
    grants: sled::Tree,
}

const LAST_PORT: &[u8] = b"last-port";
const CREATED: &[u8] = b"created";

impl Registry {
    /// Opens (or creates) `<state>/registry`. `new_state` is true when it did not exist.
    pub fn open(state_dir: &Path) -> Result<(Registry, bool), RegistryError> {
        let path = state_dir.join("registry");
        let fresh = !path.exists();
        let db = sled::Config::new()
            .path(&path)
            .mode(sled::Mode::LowSpace)
            .open()
            .map_err(|e| RegistryError::Open {
                path: path.clone(),
                reason: e.to_string(),
            })?;
        let reg = Registry {
            projects: db.open_tree("projects")?,
            meta: db.open_tree("meta")?,
            grants: db.open_tree("grants")?,
            db,
        };
        if fresh {
            reg.meta.insert(CREATED, &b"1"[..])?;
            reg.flush()?;
        }
        Ok((reg, fresh))
    }

    fn flush(&self) -> Result<(), RegistryError> {
        self.db.flush()?;
        Ok(())
    }

    fn put<T: Serialize>(tree: &sled::Tree, key: &[u8], value: &T) -> Result<(), RegistryError> {
        let bytes = serde_json::to_vec(value).map_err(|e| RegistryError::Store(e.to_string()))?;
        tree.insert(key, bytes)?;
        Ok(())
    }

    fn get<T: DeserializeOwned>(tree: &sled::Tree, key: &[u8]) -> Result<Option<T>, RegistryError> {
        tree.get(key)?
            .map(|v| serde_json::from_slice(&v).map_err(|e| RegistryError::Store(e.to_string())))
            .transpose()
    }

    /// Every registered project, in id order.
    pub fn projects(&self) -> Result<Vec<ProjectRecord>, RegistryError> {
        self.projects
            .iter()
            .values()
            .map(|v| {
                let v = v?;
                serde_json::from_slice(&v).map_err(|e| RegistryError::Store(e.to_string()))
            })
            .collect()
    }

    pub fn project(&self, id: Uuid) -> Result<Option<ProjectRecord>, RegistryError> {
        Self::get(&self.projects, id.as_bytes())
    }

    /// Registers (or updates) a project and flushes before returning.
    pub fn put_project(&self, rec: &ProjectRecord) -> Result<(), RegistryError> {
        Self::put(&self.projects, rec.id.as_bytes(), rec)?;
        self.flush()
    }

    pub fn last_port(&self) -> Result<Option<u16>, RegistryError> {
        Self::get(&self.meta, LAST_PORT)
    }

    pub fn set_last_port(&self, port: u16) -> Result<(), RegistryError> {
        Self::put(&self.meta, LAST_PORT, &port)?;
        self.flush()
    }

    /// A stored grant record (the Agent access issue defines its shape).
    pub fn grant<T: DeserializeOwned>(&self, key: &str) -> Result<Option<T>, RegistryError> {
        Self::get(&self.grants, key.as_bytes())
    }

    pub fn put_grant<T: Serialize>(&self, key: &str, value: &T) -> Result<(), RegistryError> {
        Self::put(&self.grants, key.as_bytes(), value)?;
        self.flush()
    }

    /// Removes a stored grant and flushes before returning.
    pub fn remove_grant(&self, key: &str) -> Result<(), RegistryError> {
        self.grants.remove(key.as_bytes())?;
        self.flush()
    }

    /// Every stored grant as (key, JSON bytes).
    pub fn grant_entries(&self) -> Result<Vec<(String, Vec<u8>)>, RegistryError> {
        self.grants
            .iter()
            .map(|kv| {
                let (k, v) = kv?;
                Ok((String::from_utf8_lossy(&k).into_owned(), v.to_vec()))
            })
            .collect()
    }
}

/// Opens a registry this process just dropped: sled's flusher thread lets go of the database
/// lock a moment after the last handle is dropped, so a test that reopens at once may retry.
#[cfg(test)]
pub(crate) fn reopen_after_drop(dir: &Path) -> (Registry, bool) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        match Registry::open(dir) {
            Ok(opened) => return opened,
            Err(_) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(50))
            }
            Err(e) => panic!("the registry never reopened: {e}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn projects_and_port_survive_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let (reg, fresh) = Registry::open(dir.path()).unwrap();
        assert!(fresh);
        let rec = ProjectRecord {
            id: Uuid::new_v4(),
            name: "a".into(),
            path: "/x/a".into(),
        };
        reg.put_project(&rec).unwrap();
        reg.set_last_port(4242).unwrap();
        drop(reg);
        let (reg, fresh) = reopen_after_drop(dir.path());
        assert!(!fresh);
        assert_eq!(reg.projects().unwrap(), vec![rec.clone()]);
        assert_eq!(reg.project(rec.id).unwrap(), Some(rec));
        assert_eq!(reg.last_port().unwrap(), Some(4242));
    }
}
