//! Shared environment of the Agent access tests: a service with a project, grants through the real CLI, calls with an Agent token, SSE reading.

#![allow(dead_code, unreachable_pub)]

use crate::util::{http, rho, Service};
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A running service with one project.
pub struct Env {
    pub service: Service,
    pub project: String,
    pub dir: PathBuf,
    _root: tempfile::TempDir,
    _state: tempfile::TempDir,
}

impl Env {
    /// Starts `rho` with `extra` arguments and creates project `name`.
    pub fn start(extra: &[&str], limits: Option<Value>, name: &str) -> Env {
        Env::start_with_env(extra, &[], limits, name)
    }

    pub fn start_with_env(
        extra: &[&str],
        env: &[(&str, &str)],
        limits: Option<Value>,
        name: &str,
    ) -> Env {
        let root = tempfile::tempdir().unwrap();
        let state = tempfile::tempdir().unwrap();
        let sdir = state.path().join("s");
        let mut args: Vec<String> = vec![
            "--root".into(),
            root.path().display().to_string(),
            "--state-dir".into(),
            sdir.display().to_string(),
        ];
        if let Some(l) = limits {
            let f = state.path().join("limits.json");
            std::fs::write(&f, l.to_string()).unwrap();
            args.push("--limits".into());
            args.push(f.display().to_string());
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let service = Service::spawn(&refs, env, root.path(), &sdir);
        let (status, p) = service.call("project.create", json!({"name": name}));
        assert_eq!(status, 200, "{p}");
        Env {
            project: p["value"]["id"].as_str().unwrap().to_string(),
            dir: PathBuf::from(p["value"]["path"].as_str().unwrap()),
            service,
            _root: root,
            _state: state,
        }
    }

    pub fn connection(&self) -> PathBuf {
        self.service.state.join("connection.json")
    }

    /// `rho --grant` with `args`; returns (exit code, stdout, stderr).
    pub fn grant_cli(&self, args: &[&str]) -> (i32, String, String) {
        let out = rho()
            .arg("--grant")
            .arg(self.connection())
            .args(args)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// Grants through `session.grant` as the operator; panics unless it succeeds.
    pub fn grant(&self, session: &str, methods: Option<&[&str]>) -> Value {
        let mut body = json!({"projectId": self.project, "session": session});
        if let Some(m) = methods {
            body["methods"] = json!(m);
        }
        let (status, v) = self.service.call("session.grant", body);
        assert_eq!(status, 200, "{v}");
        v["value"].clone()
    }

    /// The Agent token of a grant's connection file.
    pub fn token(&self, session: &str) -> String {
        let file = self
            .service
            .state
            .join("agents")
            .join(&self.project)
            .join(format!("{session}.json"));
        let v: Value = serde_json::from_slice(&std::fs::read(file).unwrap()).unwrap();
        v["token"].as_str().unwrap().to_string()
    }

    /// Calls `op` with a token; `projectId` is injected as the adapter does.
    pub fn agent_call(&self, token: &str, op: &str, mut body: Value) -> (u16, Value) {
        if body.get("projectId").is_none() {
            body["projectId"] = json!(self.project);
        }
        http(
            self.service.port(),
            "POST",
            &format!("/api/v2/{op}"),
            Some(token),
            &[],
            &body.to_string(),
        )
    }

    /// Like [`Env::agent_call`] with a `Rho-Contract` header.
    pub fn agent_call_with_contract(
        &self,
        token: &str,
        op: &str,
        contract: &str,
        mut body: Value,
    ) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        http(
            self.service.port(),
            "POST",
            &format!("/api/v2/{op}"),
            Some(token),
            &[("Rho-Contract", contract)],
            &body.to_string(),
        )
    }

    /// The project's snapshot as the operator.
    pub fn snapshot(&self) -> Value {
        let (status, v) = self
            .service
            .call("observation.snapshot", json!({"projectId": self.project}));
        assert_eq!(status, 200, "{v}");
        v["value"].clone()
    }

    /// Waits until the snapshot's activity has at least `n` records.
    pub fn wait_activity(&self, n: usize) -> Value {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let snap = self.snapshot();
            if snap["activity"].as_array().map_or(0, Vec::len) >= n {
                return snap;
            }
            assert!(
                Instant::now() < deadline,
                "activity never reached {n}: {snap}"
            );
            std::thread::sleep(Duration::from_millis(30));
        }
    }
}

/// Reads SSE frames of `query` (as the local browser) until `want` events of `kind` or a timeout.
pub fn read_events(port: u16, query: &str, kind: &str, want: usize) -> Vec<Value> {
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    let req = format!("GET /api/v2/events{query} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nAccept: text/event-stream\r\n\r\n");
    stream.write_all(req.as_bytes()).unwrap();
    let (mut out, mut event) = (Vec::new(), String::new());
    for line in BufReader::new(stream).lines() {
        let Ok(line) = line else { break };
        if let Some(v) = line.strip_prefix("event: ") {
            event = v.to_string();
        } else if let Some(v) = line.strip_prefix("data: ") {
            if event == kind {
                out.push(serde_json::from_str(v).unwrap_or_default());
                if out.len() >= want {
                    break;
                }
            }
        }
    }
    out
}

/// Mode bits of a file.
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}
