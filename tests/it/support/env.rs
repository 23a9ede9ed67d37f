//! One environment for the black-box tests: a running service with one project on temporary folders, and request helpers.

use super::http::http;
use super::poll::until;
use super::service::{rho, sha256_hex, Service};
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// A running service (on temporary `root` and `state` folders) with one project.
pub struct Env {
    pub service: Service,
    pub project: String,
    pub dir: PathBuf,
    pub root: tempfile::TempDir,
    pub state: tempfile::TempDir,
    /// Scratch space outside the service's folders: a limits file, the Rscript spy, repositories.
    pub work: tempfile::TempDir,
}

/// How [`Env::launch`] starts the service.
#[derive(Default)]
pub struct Launch<'a> {
    /// Arguments after `--root ROOT --state-dir STATE`.
    pub args: &'a [&'a str],
    /// Extra environment of the service.
    pub env: &'a [(&'a str, &'a str)],
    /// Written to a file passed as `--limits`.
    pub limits: Option<Value>,
    /// `--plugins`.
    pub plugins: Option<&'a str>,
    /// `--rscript` pointing at a spy that records every call ([`Env::rscript_was_called`]).
    pub rscript_spy: bool,
    /// The project's name (default `p`).
    pub name: Option<&'a str>,
    /// A state folder whose path is this long at least (a Unix socket's path below it would not
    /// fit).
    pub state_len: Option<usize>,
}

impl Env {
    /// Starts `rho --root ROOT --state-dir STATE ...` as `launch` says and creates the project.
    pub fn launch(launch: Launch<'_>) -> Env {
        let root = tempfile::tempdir().unwrap();
        let state = match launch.state_len {
            Some(n) => tempfile::Builder::new()
                .prefix(&"s".repeat(n))
                .tempdir()
                .unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let work = tempfile::tempdir().unwrap();
        let mut args: Vec<String> = vec![
            "--root".into(),
            root.path().display().to_string(),
            "--state-dir".into(),
            state.path().display().to_string(),
        ];
        if launch.rscript_spy {
            let script = rscript_spy(work.path());
            args.extend(["--rscript".into(), script.display().to_string()]);
        }
        if let Some(l) = launch.limits {
            let f = work.path().join("limits.json");
            std::fs::write(&f, l.to_string()).unwrap();
            args.extend(["--limits".into(), f.display().to_string()]);
        }
        if let Some(p) = launch.plugins {
            args.extend(["--plugins".into(), p.to_string()]);
        }
        args.extend(launch.args.iter().map(|s| s.to_string()));
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        let service = Service::spawn(&refs, launch.env, root.path(), state.path());
        let name = launch.name.unwrap_or("p");
        let (status, p) = service.call("project.create", json!({"name": name}));
        assert_eq!(status, 200, "{p}");
        Env {
            project: p["value"]["id"].as_str().unwrap().to_string(),
            dir: PathBuf::from(p["value"]["path"].as_str().unwrap()),
            service,
            root,
            state,
            work,
        }
    }

    /// Starts `rho` with `extra` arguments and an optional limits file; creates project `name`.
    pub fn start(extra: &[&str], limits: Option<Value>, name: &str) -> Env {
        Env::start_with_env(extra, &[], limits, name)
    }

    /// Like [`Env::start`] with extra environment.
    pub fn start_with_env(
        extra: &[&str],
        env: &[(&str, &str)],
        limits: Option<Value>,
        name: &str,
    ) -> Env {
        Env::launch(Launch {
            args: extra,
            env,
            limits,
            name: Some(name),
            ..Launch::default()
        })
    }

    /// The data owners' environment: an Rscript spy (no data operation may start R), optional
    /// limits and plugin selection.
    pub fn data(limits: Option<Value>, plugins: Option<&str>, name: &str) -> Env {
        Env::launch(Launch {
            limits,
            plugins,
            rscript_spy: true,
            name: Some(name),
            ..Launch::default()
        })
    }

    /// The managed-R environment: real R, `extra` arguments and environment, project `runs`.
    pub fn runs(extra: &[&str], env: &[(&str, &str)]) -> Env {
        Env::launch(Launch {
            args: extra,
            env,
            name: Some("runs"),
            ..Launch::default()
        })
    }

    /// Starts the service again on the same folders with `--root --state-dir` and `extra` (the
    /// previous one is killed if it still runs).
    pub fn restart(&mut self, extra: &[&str]) {
        self.restart_with_env(extra, &[]);
    }

    /// Like [`Env::restart`] with extra environment.
    pub fn restart_with_env(&mut self, extra: &[&str], env: &[(&str, &str)]) {
        let mut args = vec![
            "--root",
            self.root.path().to_str().unwrap(),
            "--state-dir",
            self.state.path().to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        if let Ok(None) = self.service.child.try_wait() {
            let _ = self.service.child.kill();
            let _ = self.service.child.wait();
        }
        self.service = Service::spawn(&args, env, self.root.path(), self.state.path());
    }

    // --- Operator calls on the project.

    /// Calls `op` as the operator with this project's `projectId`.
    pub fn call(&self, op: &str, mut body: Value) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        self.service.call(op, body)
    }

    /// Like [`Env::call`]; asserts success and answers the value.
    pub fn ok(&self, op: &str, body: Value) -> Value {
        let (status, v) = self.call(op, body);
        assert_eq!(status, 200, "{op}: {v}");
        v["value"].clone()
    }

    /// Like [`Env::call`]; asserts a refusal and answers (status, error).
    pub fn err(&self, op: &str, body: Value) -> (u16, Value) {
        let (status, v) = self.call(op, body);
        assert_ne!(status, 200, "{op}: {v}");
        (status, v["error"].clone())
    }

    /// The project's snapshot as the operator.
    pub fn snapshot(&self) -> Value {
        let (status, v) = self
            .service
            .call("observation.snapshot", json!({"projectId": self.project}));
        assert_eq!(status, 200, "{v}");
        v["value"].clone()
    }

    // --- Agents.

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

    /// Waits until the snapshot's activity has at least `n` records.
    pub fn wait_activity(&self, n: usize) -> Value {
        let mut snap = Value::Null;
        until(
            &format!("activity reaches {n}"),
            Duration::from_secs(10),
            || {
                snap = self.snapshot();
                snap["activity"].as_array().map_or(0, Vec::len) >= n
            },
        );
        snap
    }

    // --- Data owners.

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
        let (status, v) = self.service.call("capability.list", json!({}));
        assert_eq!(status, 200, "{v}");
        v["value"].clone()
    }

    /// Whether the Rscript spy ([`Launch::rscript_spy`]) was started.
    pub fn rscript_was_called(&self) -> bool {
        self.work.path().join("rscript-called").exists()
    }

    // --- Managed R runs.

    /// Writes `code` to `path` in the project; answers the disk script input.
    pub fn script(&self, path: &str, code: &str) -> Value {
        std::fs::write(self.dir.join(path), code).unwrap();
        json!({"kind": "disk", "path": path, "digest": sha256_hex(code.as_bytes())})
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

/// A script standing in for Rscript that records every call (in `dir/rscript-called`).
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

/// Mode bits of a file.
pub fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}
