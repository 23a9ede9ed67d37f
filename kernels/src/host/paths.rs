//! Where a project's Host lives on disk: the socket, the lock, the log and one record folder per
//! `operationId` (the service reads the log files directly for `action.output` pages).

use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

/// The longest socket path (in bytes, without the terminating NUL) this platform's `sun_path`
/// accepts: 107 on Linux, 103 on macOS and the BSDs.
pub const SOCKET_PATH_MAX: usize = if cfg!(target_os = "linux") { 107 } else { 103 };

/// File names inside a record folder.
pub const RECORD_FILE: &str = "record.json";
pub const STDOUT_FILE: &str = "stdout.log";
pub const STDERR_FILE: &str = "stderr.log";

/// Why a project has no usable Host socket path.
#[derive(Debug, thiserror::Error)]
pub enum SocketPathError {
    #[error("project folder {path} cannot be resolved: {source}")]
    Project {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("Host socket path {path} is {bytes} bytes; this platform allows at most {max}; move the project to a shorter path")]
    TooLong {
        path: PathBuf,
        bytes: usize,
        max: usize,
    },
}

/// The canonical project folder (symlinks resolved).
pub fn canonical_project(project_dir: &Path) -> Result<PathBuf, SocketPathError> {
    std::fs::canonicalize(project_dir).map_err(|source| SocketPathError::Project {
        path: project_dir.to_path_buf(),
        source,
    })
}

/// `<canonical project>/.rho/host.sock`, refused when longer than [`SOCKET_PATH_MAX`].
pub fn socket_path(project_dir: &Path) -> Result<PathBuf, SocketPathError> {
    socket_path_in(&canonical_project(project_dir)?)
}

/// [`socket_path`] for a project path that is already canonical.
pub fn socket_path_in(canonical_project: &Path) -> Result<PathBuf, SocketPathError> {
    let path = canonical_project.join(".rho").join("host.sock");
    let bytes = path.as_os_str().as_bytes().len();
    if bytes > SOCKET_PATH_MAX {
        return Err(SocketPathError::TooLong {
            path,
            bytes,
            max: SOCKET_PATH_MAX,
        });
    }
    Ok(path)
}

/// `<project>/.rho/host/`: the Host's own folder (lock, log, record folders).
pub fn host_dir(project: &Path) -> PathBuf {
    project.join(".rho").join("host")
}

/// `<project>/.rho/host/host.lock`: held exclusively by the one Host serving the project.
pub fn lock_path(project: &Path) -> PathBuf {
    host_dir(project).join("host.lock")
}

/// `<project>/.rho/host/host.log`: the Host's stderr (appended by [`crate::host::client::start`]).
pub fn log_path(project: &Path) -> PathBuf {
    host_dir(project).join("host.log")
}

/// `<project>/.rho/host/<operationId>/`. The id must have passed [`check_operation_id`].
pub fn record_dir(project: &Path, operation_id: &str) -> PathBuf {
    host_dir(project).join(operation_id)
}

/// `<project>/.rho/host/<operationId>/record.json`.
pub fn record_path(project: &Path, operation_id: &str) -> PathBuf {
    record_dir(project, operation_id).join(RECORD_FILE)
}

/// `<project>/.rho/host/<operationId>/stdout.log` (at most `maxLogBytes`: the head).
pub fn stdout_path(project: &Path, operation_id: &str) -> PathBuf {
    record_dir(project, operation_id).join(STDOUT_FILE)
}

/// `<project>/.rho/host/<operationId>/stderr.log` (at most `maxLogBytes`: the head).
pub fn stderr_path(project: &Path, operation_id: &str) -> PathBuf {
    record_dir(project, operation_id).join(STDERR_FILE)
}

/// `<project>/.rho/host/<operationId>/<scriptName>`: the frozen code that runs.
pub fn script_path(project: &Path, operation_id: &str, script_name: &str) -> PathBuf {
    record_dir(project, operation_id).join(script_name)
}

/// Names the Host's own files take in `.rho/host/`; no operation may use them.
const RESERVED_IDS: [&str; 2] = ["host.lock", "host.log"];

/// An `operationId` the Host can name a folder after: 1-128 bytes of `[A-Za-z0-9._-]`, starting
/// with a letter or digit, and not `host.lock`/`host.log`.
pub fn check_operation_id(id: &str) -> Result<(), String> {
    let ok_chars = id
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'));
    let first_ok = id.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric());
    if id.is_empty() || id.len() > 128 || !ok_chars || !first_ok {
        return Err(format!(
            "operationId {id:?} must be 1-128 characters of A-Z a-z 0-9 . _ - starting with a letter or digit"
        ));
    }
    if RESERVED_IDS.contains(&id) {
        return Err(format!(
            "operationId {id:?} is reserved for the Host's own files"
        ));
    }
    Ok(())
}

/// A script file name the Host can freeze the code under: a plain file name (same characters
/// as an operationId) that is none of the record folder's own files.
pub fn check_script_name(name: &str) -> Result<(), String> {
    check_operation_id(name).map_err(|_| {
        format!("scriptName {name:?} must be a plain file name of A-Z a-z 0-9 . _ - starting with a letter or digit")
    })?;
    if [RECORD_FILE, STDOUT_FILE, STDERR_FILE].contains(&name) {
        return Err(format!(
            "scriptName {name:?} is reserved for the record folder's own files"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn socket_path_is_bounded_and_names_path_and_length() {
        let dir = tempfile::tempdir().unwrap();
        let ok = socket_path(dir.path()).unwrap();
        assert!(ok.ends_with(".rho/host.sock"));
        let canonical = std::fs::canonicalize(dir.path()).unwrap();
        let budget = SOCKET_PATH_MAX - canonical.as_os_str().len() - "/.rho/host.sock".len();
        // Exactly at the bound is accepted; one byte more is refused.
        let at = canonical.join("a".repeat(budget - 1));
        std::fs::create_dir(&at).unwrap();
        assert_eq!(socket_path(&at).unwrap().as_os_str().len(), SOCKET_PATH_MAX);
        let over = canonical.join("a".repeat(budget));
        std::fs::create_dir(&over).unwrap();
        let err = socket_path(&over).unwrap_err();
        let text = err.to_string();
        let expected_path = over.join(".rho/host.sock");
        assert!(
            text.contains(&expected_path.display().to_string()),
            "{text}"
        );
        assert!(
            text.contains(&format!("{} bytes", SOCKET_PATH_MAX + 1)),
            "{text}"
        );
        assert!(text.contains(&SOCKET_PATH_MAX.to_string()), "{text}");
    }

    #[test]
    fn missing_project_is_named() {
        let err = socket_path(Path::new("/definitely/not/here")).unwrap_err();
        assert!(err.to_string().contains("/definitely/not/here"));
    }

    #[test]
    fn operation_ids_and_script_names() {
        assert!(check_operation_id("2f1c9a3e-8b7d-4c1a-9e2f-0a1b2c3d4e5f").is_ok());
        assert!(check_operation_id("run_1.v2").is_ok());
        for bad in [
            "",
            ".hidden",
            "a/b",
            "..",
            "host.lock",
            "host.log",
            "a b",
            "é",
        ] {
            assert!(check_operation_id(bad).is_err(), "{bad}");
        }
        assert!(check_operation_id(&"a".repeat(129)).is_err());
        assert!(check_script_name("analysis.R").is_ok());
        for bad in ["record.json", "stdout.log", "stderr.log", "../x.R", "x/y.R"] {
            assert!(check_script_name(bad).is_err(), "{bad}");
        }
    }
}
