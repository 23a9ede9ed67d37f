//! Private connection files: the operator's `connection.json` and rewriting Agent files after a port change.

use serde::{Deserialize, Serialize};
use std::fs;
use std::path::Path;

/// `<state>/connection.json`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Connection {
    #[serde(rename = "apiVersion")]
    pub(crate) api_version: String,
    pub(crate) url: String,
    pub(crate) token: String,
    pub(crate) pid: u32,
    pub(crate) version: String,
}

/// A new random credential (256 bits, hex).
pub(crate) fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    rho_plumbing::hex::encode(&bytes)
}

/// Writes `bytes` to `path` privately (0600): temp file, fsync, rename, directory fsync.
pub(crate) use rho_plumbing::fs::replace_private as write_private;

impl Connection {
    pub(crate) fn write(&self, state: &Path) -> std::io::Result<()> {
        let json = serde_json::to_vec_pretty(self).map_err(std::io::Error::other)?;
        write_private(&state.join("connection.json"), &json)
    }

    /// Reads a connection file; the error names the file, never its contents.
    pub(crate) fn read(path: &Path) -> Result<Connection, String> {
        let text = fs::read(path)
            .map_err(|e| format!("cannot read connection file {}: {e}", path.display()))?;
        serde_json::from_slice(&text)
            .map_err(|_| format!("{} is not a Rho connection file", path.display()))
    }
}

/// Rewrites every Agent connection file under `<state>/agents/` that names `old_url` to `new_url`, keeping its token.
pub(crate) fn rewrite_agent_files(state: &Path, old_url: &str, new_url: &str) -> Vec<String> {
    let mut rewritten = Vec::new();
    let Ok(projects) = fs::read_dir(state.join("agents")) else {
        return rewritten;
    };
    for project in projects.flatten() {
        let Ok(files) = fs::read_dir(project.path()) else {
            continue;
        };
        for file in files.flatten() {
            let path = file.path();
            if path.extension().is_none_or(|e| e != "json") {
                continue;
            }
            let Ok(text) = fs::read(&path) else { continue };
            let Ok(mut value) = serde_json::from_slice::<serde_json::Value>(&text) else {
                continue;
            };
            if value.get("url").and_then(|u| u.as_str()) != Some(old_url) {
                continue;
            }
            value["url"] = serde_json::Value::String(new_url.to_string());
            let Ok(bytes) = serde_json::to_vec_pretty(&value) else {
                continue;
            };
            match write_private(&path, &bytes) {
                Ok(()) => rewritten.push(path.display().to_string()),
                Err(e) => {
                    tracing::warn!(file = %path.display(), error = %e, "could not rewrite an Agent connection file")
                }
            }
        }
    }
    rewritten
}
