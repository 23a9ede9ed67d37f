//! Locating the real MCP peers installed by `mcp/tests/setup.sh`, and process checks.

use std::path::PathBuf;

/// `$RHO_MCP_PEERS`, default `$HOME/.cache/rho-test/mcp-peers` (see setup.sh).
pub(crate) fn peers_dir() -> PathBuf {
    match std::env::var_os("RHO_MCP_PEERS") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
            .join(".cache/rho-test/mcp-peers"),
    }
}

fn require(path: PathBuf) -> PathBuf {
    assert!(
        path.exists(),
        "test peer {} is missing: run `bash mcp/tests/setup.sh` first",
        path.display()
    );
    path
}

/// `@modelcontextprotocol/server-everything`.
pub(crate) fn everything() -> PathBuf {
    require(peers_dir().join("node_modules/.bin/mcp-server-everything"))
}

/// `@modelcontextprotocol/server-filesystem`.
pub(crate) fn filesystem() -> PathBuf {
    require(peers_dir().join("node_modules/.bin/mcp-server-filesystem"))
}

/// The venv python with the `mcp` package.
pub(crate) fn python() -> PathBuf {
    require(peers_dir().join("venv/bin/python"))
}

/// A script under `mcp/tests/fixtures`.
pub(crate) fn fixture(name: &str) -> PathBuf {
    require(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(name),
    )
}

/// Whether a process exists and is not a zombie.
pub(crate) fn alive(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => false,
        Ok(stat) => stat
            .rsplit(')')
            .next()
            .and_then(|rest| rest.split_whitespace().next())
            .is_some_and(|state| state != "Z" && state != "X"),
    }
}

/// Reads a pid file written by a fixture, waiting briefly for it to appear.
pub(crate) fn read_pid(path: &std::path::Path) -> i32 {
    for _ in 0..100 {
        if let Ok(s) = std::fs::read_to_string(path) {
            if let Ok(pid) = s.trim().parse() {
                return pid;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("pid file {} never appeared", path.display());
}

/// TOML string literal of a path.
pub(crate) fn q(p: &std::path::Path) -> String {
    format!("{:?}", p.display().to_string())
}
