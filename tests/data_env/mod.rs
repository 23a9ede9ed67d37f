//! The shared environment of the data-owner tests: a service with an Rscript spy, one project, and request helpers.

#![allow(dead_code, unreachable_pub)]

use crate::util::Service;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};

/// A script standing in for Rscript that records every call; no data operation may start it.
pub fn rscript_spy(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = dir.join("Rscript");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" >> {}\n",
            dir.join("rscript-called").display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// A running service with one project named `name`.
pub struct Env {
    pub _root: tempfile::TempDir,
    pub _state: tempfile::TempDir,
    pub spy: tempfile::TempDir,
    pub s: Service,
    pub project: String,
    pub dir: PathBuf,
}

/// Starts a service (optionally with a limits file and a plugin selection) and creates a project.
pub fn start(limits: Option<Value>, plugins: Option<&str>, name: &str) -> Env {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let spy = tempfile::tempdir().unwrap();
    let script = rscript_spy(spy.path());
    let mut args = vec![
        "--root".to_string(),
        root.path().to_str().unwrap().to_string(),
        "--state-dir".to_string(),
        state.path().to_str().unwrap().to_string(),
        "--rscript".to_string(),
        script.to_str().unwrap().to_string(),
    ];
    if let Some(l) = limits {
        let f = spy.path().join("limits.json");
        std::fs::write(&f, l.to_string()).unwrap();
        args.extend(["--limits".into(), f.to_str().unwrap().to_string()]);
    }
    if let Some(p) = plugins {
        args.extend(["--plugins".into(), p.to_string()]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = Service::spawn(&args, &[], root.path(), state.path());
    let (status, p) = s.call("project.create", json!({"name": name}));
    assert_eq!(status, 200, "{p}");
    let project = p["value"]["id"].as_str().unwrap().to_string();
    let dir = PathBuf::from(p["value"]["path"].as_str().unwrap());
    Env {
        _root: root,
        _state: state,
        spy,
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
    /// Writes `bytes` to `path` and registers them; the reply's `{id, version}`.
    pub fn put(&self, path: &str, bytes: &[u8], extra: Value) -> Value {
        std::fs::write(self.dir.join(path), bytes).unwrap();
        let mut body = json!({"changeId": format!("put-{path}-{}", bytes.len()), "path": path, "kind": "file", "format": "bin"});
        for (k, v) in extra.as_object().unwrap() {
            body[k] = v.clone();
        }
        let r = self.ok("resource.register", body);
        json!({"id": r["id"], "version": r["version"]})
    }
    /// `capability.list` (not project-scoped).
    pub fn caps(&self) -> Value {
        let (status, v) = self.s.call("capability.list", json!({}));
        assert_eq!(status, 200, "{v}");
        v["value"].clone()
    }
    pub fn rscript_was_called(&self) -> bool {
        self.spy.path().join("rscript-called").exists()
    }
}
