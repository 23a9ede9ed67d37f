//! The identity of a Core binary (path, SHA-256, version) that every accepted run records.

use crate::host::server::inventory::hash_regular_file;
use serde::{Deserialize, Serialize};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long `<core> --version` may take.
pub const VERSION_TIMEOUT: Duration = Duration::from_secs(20);
/// How much `<core> --version` may print.
pub const VERSION_MAX_BYTES: usize = 2 << 20;

/// Which Core ran (or would run) a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CoreIdentity {
    /// Canonical path of the binary.
    pub path: PathBuf,
    /// SHA-256 hex of its bytes.
    pub sha256: String,
    /// The first line `--version` prints, e.g. `rho 0.1.0`.
    pub version: String,
}

/// Why a Core binary has no identity.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    #[error("Core binary {path} cannot be read: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Core binary {0} is not a regular file")]
    NotAFile(PathBuf),
    #[error("Core binary {path} --version failed: {reason}")]
    Version { path: PathBuf, reason: String },
}

/// This build's version line, as `rho --version` prints it.
pub fn our_version() -> String {
    format!("rho {}", env!("CARGO_PKG_VERSION"))
}

impl CoreIdentity {
    /// The identity of the binary at `path`. Its version is ours when it is the running
    /// executable, otherwise what `<path> --version` prints (bounded in time and size).
    pub fn of(path: &Path) -> Result<Self, CoreError> {
        let read = |source| CoreError::Read {
            path: path.to_path_buf(),
            source,
        };
        let canonical = std::fs::canonicalize(path).map_err(read)?;
        let (_, sha256) = hash_regular_file(&canonical)
            .map_err(read)?
            .ok_or_else(|| CoreError::NotAFile(canonical.clone()))?;
        let ours = std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .is_ok_and(|exe| exe == canonical);
        let version = if ours {
            our_version()
        } else {
            ask_version(&canonical).map_err(|reason| CoreError::Version {
                path: canonical.clone(),
                reason,
            })?
        };
        Ok(Self {
            path: canonical,
            sha256,
            version,
        })
    }
}

fn ask_version(path: &Path) -> Result<String, String> {
    let mut child = Command::new(path)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let stdout = child.stdout.take();
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        if let Some(s) = stdout {
            let _ = s.take(VERSION_MAX_BYTES as u64 + 1).read_to_end(&mut out);
        }
        out
    });
    let deadline = Instant::now() + VERSION_TIMEOUT;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("no answer within {} s", VERSION_TIMEOUT.as_secs()));
            }
            Err(e) => return Err(e.to_string()),
        }
    };
    let out = reader
        .join()
        .map_err(|_| "reader thread failed".to_string())?;
    if out.len() > VERSION_MAX_BYTES {
        return Err(format!("printed more than {VERSION_MAX_BYTES} bytes"));
    }
    if !status.success() {
        return Err(format!("exited with {status}"));
    }
    let text = String::from_utf8_lossy(&out);
    let line = text.lines().next().unwrap_or("").trim();
    if line.is_empty() {
        return Err("printed no version".into());
    }
    Ok(line.to_string())
}
