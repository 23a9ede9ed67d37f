//! The adapter's private per-connection store next to the connection file
//! (`<session>.json` -> `<session>.mcp/`, 0700): retained results, cached knowledge bodies and
//! managed intent records. Knowledge belongs to one connection (its credential): opening the
//! store under another connection drops it, so bodies are fetched again.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde_json::json;

use super::fsio;
use super::intents::Intents;
use super::knowledge::{Knowledge, Persisted};
use super::limits::Limits;
use super::retained::Retained;

/// The store of one connection.
#[derive(Debug)]
pub struct Store {
    dir: PathBuf,
    /// Cached complete bodies.
    pub knowledge: Mutex<Knowledge>,
    /// Retained results.
    pub results: Mutex<Retained>,
    /// Managed intent records.
    pub intents: Intents,
}

/// The store folder of a connection file.
pub fn dir_for(connection_file: &Path) -> PathBuf {
    let stem = connection_file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "connection".into());
    connection_file
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!("{stem}.mcp"))
}

impl Store {
    /// Opens the store of `connection_file` for the connection `identity`.
    pub fn open(connection_file: &Path, identity: &str, limits: &Limits) -> std::io::Result<Self> {
        let dir = dir_for(connection_file);
        fsio::private_dir(&dir)?;
        let id_file = dir.join("connection.json");
        let same = std::fs::read(&id_file)
            .ok()
            .and_then(|b| serde_json::from_slice::<serde_json::Value>(&b).ok())
            .and_then(|v| {
                v.get("connection")
                    .and_then(|c| c.as_str())
                    .map(str::to_owned)
            })
            .is_some_and(|c| c == identity);
        let knowledge_file = dir.join("knowledge.json");
        let persisted = if same {
            std::fs::read(&knowledge_file)
                .ok()
                .and_then(|b| serde_json::from_slice::<Persisted>(&b).ok())
                .unwrap_or_default()
        } else {
            fsio::remove(&knowledge_file)?;
            fsio::write_atomic(
                &id_file,
                &serde_json::to_vec(&json!({"connection": identity})).unwrap_or_default(),
            )?;
            Persisted::default()
        };
        Ok(Self {
            knowledge: Mutex::new(Knowledge::restore(
                limits.cache_entries,
                limits.cache_bytes,
                persisted,
            )),
            results: Mutex::new(Retained::open(
                dir.join("results"),
                limits.max_results,
                limits.max_retained_bytes,
            )?),
            intents: Intents::open(dir.join("intents"), limits.max_intents)?,
            dir,
        })
    }

    /// Writes the knowledge cache (whole bodies, LRU order) durably.
    pub fn save_knowledge(&self, k: &Knowledge) {
        let bytes = serde_json::to_vec(&k.persisted()).unwrap_or_default();
        if let Err(e) = fsio::write_atomic(&self.dir.join("knowledge.json"), &bytes) {
            tracing::warn!(target: "rho::mcp::adapter", error = %e, "could not save the knowledge cache");
        }
    }

    /// The store folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::knowledge::Body;

    fn body() -> Body {
        Body {
            reference: "sha256:aa".into(),
            kind: "contract".into(),
            name: "project.entries".into(),
            body: json!({"owner": "service"}),
        }
    }

    #[test]
    fn knowledge_survives_a_restart_but_not_another_connection() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("claude-code.json");
        let limits = Limits::default();
        let s = Store::open(&file, "one", &limits).unwrap();
        assert_eq!(s.dir(), dir.path().join("claude-code.mcp"));
        {
            let mut k = s.knowledge.lock().unwrap();
            k.insert(body());
            s.save_knowledge(&k);
        }
        let r = s
            .results
            .lock()
            .unwrap()
            .retain("op", &json!(null), b"1")
            .unwrap();
        drop(s);
        let again = Store::open(&file, "one", &limits).unwrap();
        assert!(again.knowledge.lock().unwrap().holds("sha256:aa"));
        drop(again);
        let other = Store::open(&file, "two", &limits).unwrap();
        assert!(!other.knowledge.lock().unwrap().holds("sha256:aa"));
        assert_eq!(
            *other.results.lock().unwrap().load(&r.reference).unwrap(),
            json!(1)
        );
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(other.dir()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
}
