//! The shared environment of the managed-R tests: real R, a local package repository, a service, request helpers.

#![allow(dead_code, unreachable_pub)]

use crate::util::Service;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Builds a file-based CRAN-like repository holding `rhotiny` at `version` (`R CMD build` +
/// `tools::write_PACKAGES`); answers its `file://` URL.
pub fn local_repo(dir: &Path, version: &str) -> String {
    let src = dir.join("rhotiny");
    std::fs::create_dir_all(src.join("R")).unwrap();
    std::fs::write(
        src.join("DESCRIPTION"),
        format!("Package: rhotiny\nVersion: {version}\nTitle: A Tiny Test Package\nDescription: Used by Rho's tests.\nAuthors@R: person(\"Rho\", \"Tests\", email = \"t@example.org\", role = c(\"aut\", \"cre\"))\nLicense: MIT\nEncoding: UTF-8\n"),
    )
    .unwrap();
    std::fs::write(src.join("NAMESPACE"), "export(tiny)\n").unwrap();
    std::fs::write(src.join("R").join("tiny.R"), "tiny <- function() 42\n").unwrap();
    let contrib = dir.join("repo").join("src").join("contrib");
    std::fs::create_dir_all(&contrib).unwrap();
    let out = Command::new("R")
        .args(["CMD", "build", "--no-build-vignettes", "--no-manual"])
        .arg(&src)
        .current_dir(&contrib)
        .output()
        .expect("R CMD build runs (R is installed by scripts/test)");
    assert!(
        out.status.success(),
        "R CMD build: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = Command::new("Rscript")
        .args([
            "-e",
            "tools::write_PACKAGES(commandArgs(TRUE)[1], type = 'source')",
        ])
        .arg(&contrib)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "write_PACKAGES: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    format!("file://{}", dir.join("repo").display())
}

/// A running service with one project.
pub struct Env {
    pub root: tempfile::TempDir,
    pub state: tempfile::TempDir,
    pub work: tempfile::TempDir,
    pub s: Service,
    pub project: String,
    pub dir: PathBuf,
}

/// Starts `rho --root --state-dir ARGS` with `env` and creates a project.
pub fn start(extra: &[&str], env: &[(&str, &str)]) -> Env {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let mut args = vec![
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let s = Service::spawn(&args, env, root.path(), state.path());
    let (status, p) = s.call("project.create", json!({"name": "runs"}));
    assert_eq!(status, 200, "{p}");
    let project = p["value"]["id"].as_str().unwrap().to_string();
    let dir = PathBuf::from(p["value"]["path"].as_str().unwrap());
    Env {
        root,
        state,
        work,
        s,
        project,
        dir,
    }
}

impl Env {
    pub fn call(&self, op: &str, mut body: Value) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        self.s.call(op, body)
    }
    pub fn ok(&self, op: &str, body: Value) -> Value {
        let (status, v) = self.call(op, body);
        assert_eq!(status, 200, "{op}: {v}");
        v["value"].clone()
    }
    pub fn err(&self, op: &str, body: Value) -> (u16, Value) {
        let (status, v) = self.call(op, body);
        assert_ne!(status, 200, "{op}: {v}");
        (status, v["error"].clone())
    }
}

/// SHA-256 hex of bytes.
pub fn sha(bytes: &[u8]) -> String {
    crate::util::sha256_hex(bytes)
}

impl Env {
    /// Writes `code` to `path` in the project; answers the disk script input.
    pub fn script(&self, path: &str, code: &str) -> Value {
        std::fs::write(self.dir.join(path), code).unwrap();
        json!({"kind": "disk", "path": path, "digest": sha(code.as_bytes())})
    }

    /// The body of an `action.submit` of `r.execute` with `input` (defaults filled).
    pub fn submit_body(&self, op: &str, input: Value) -> Value {
        let mut full = json!({"args": [], "requirements": [], "artifacts": [], "completion": null});
        for (k, v) in input.as_object().unwrap() {
            full[k] = v.clone();
        }
        json!({"operationId": op, "action": "r.execute", "actionVersion": "0.2.0", "input": full})
    }

    /// Polls `action.observe` until the run is no longer running (or `secs` pass).
    pub fn wait_end(&self, op: &str, secs: u64) -> Value {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        loop {
            let v = self.ok("action.observe", json!({"operationId": op}));
            if v["execution"] != "running" || std::time::Instant::now() > deadline {
                return v;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }

    /// The whole captured stream as text.
    pub fn output(&self, op: &str, stream: &str) -> String {
        use base64::Engine;
        let mut all = Vec::new();
        let mut offset = 0u64;
        loop {
            let v = self.ok(
                "action.output",
                json!({"operationId": op, "stream": stream, "offset": offset}),
            );
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(v["bytes"].as_str().unwrap())
                .unwrap();
            if bytes.is_empty() {
                break;
            }
            all.extend_from_slice(&bytes);
            offset = v["nextOffset"].as_u64().unwrap();
        }
        String::from_utf8_lossy(&all).into_owned()
    }
}
