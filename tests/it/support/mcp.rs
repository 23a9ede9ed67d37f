//! The MCP adapter's peers: the Python MCP SDK and the MCP Inspector, a grant through the real
//! `rho --grant` CLI, and a Python scenario run against `rho --mcp FILE`.

use super::env::Env;
use serde_json::Value;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// Where `mcp/tests/setup.sh` installed the peers.
pub fn peers() -> PathBuf {
    std::env::var_os("RHO_MCP_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/rho-test/mcp-peers")
        })
}

/// The venv's Python with the `mcp` SDK (fails loudly when setup.sh has not run).
pub fn python() -> PathBuf {
    let p = peers().join("venv/bin/python");
    assert!(
        p.exists(),
        "{} is missing: run bash mcp/tests/setup.sh",
        p.display()
    );
    p
}

/// The scenario script.
pub fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("mcp/tests/adapter/agent_client.py")
}

/// Grants the project to `session` through `rho --grant` and returns (the connection file, the
/// printed JSON). Checks the MCP entry the CLI prints.
pub fn grant_file(env: &Env, session: &str) -> (PathBuf, Value) {
    let (code, out, err) = env.grant_cli(&["--project-id", &env.project, "--session", session]);
    assert_eq!(code, 0, "rho --grant failed: {err}");
    let v: Value = serde_json::from_str(&out).expect("rho --grant prints JSON");
    assert_eq!(v["mcp"]["name"], "rho");
    assert_eq!(v["mcp"]["args"][0], "--mcp");
    let file = PathBuf::from(v["mcp"]["args"][1].as_str().unwrap());
    assert!(file.is_absolute() && file.exists(), "{v}");
    (file, v)
}

/// A running Python scenario: its stdout lines arrive on `lines`.
pub struct Scenario {
    pub child: Child,
    pub stdin: Option<ChildStdin>,
    pub lines: Receiver<String>,
}

impl Drop for Scenario {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// Starts `agent_client.py SCENARIO <rho> FILE MODE ARGS...`.
pub fn start(
    scenario: &str,
    file: &Path,
    mode: &str,
    args: &[&str],
    env: &[(&str, &str)],
) -> Scenario {
    let mut cmd = Command::new(python());
    cmd.arg(script())
        .arg(scenario)
        .arg(env!("CARGO_BIN_EXE_rho"))
        .arg(file)
        .arg(mode)
        .args(args)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("python runs");
    let stdout = child.stdout.take().unwrap();
    let stdin = child.stdin.take();
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let _ = tx.send(line);
        }
    });
    Scenario {
        child,
        stdin,
        lines: rx,
    }
}

impl Scenario {
    /// The next stdout line (panics after `secs`).
    pub fn line(&self, secs: u64) -> String {
        self.lines
            .recv_timeout(Duration::from_secs(secs))
            .expect("the scenario printed its next line in time")
    }

    /// Lets a scenario waiting on stdin go on.
    pub fn go_on(&mut self) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(b"go\n").unwrap();
        stdin.flush().unwrap();
    }

    /// Waits for the end; returns the summary (last line) and asserts success.
    pub fn finish(mut self, secs: u64) -> Value {
        let mut last = String::new();
        while let Ok(l) = self.lines.recv_timeout(Duration::from_secs(secs)) {
            last = l;
        }
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "the Python MCP client failed ({status}); last line: {last}"
        );
        serde_json::from_str(&last).unwrap_or_else(|_| panic!("summary JSON, got {last:?}"))
    }
}

/// Runs a scenario to its end.
pub fn run(scenario: &str, file: &Path, mode: &str, args: &[&str]) -> Value {
    start(scenario, file, mode, args, &[]).finish(120)
}
