//! The real `rho` binary: running its CLI, a service started on temporary folders and stopped, projects made in-process.

use super::http::http;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

pub fn rho() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_rho"));
    c.env("RUST_LOG", "warn");
    c
}

pub fn run(args: &[&str]) -> Output {
    rho().args(args).output().expect("rho runs")
}

pub fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A running `rho` service on temporary folders. Dropping it kills the process, so a test that
/// ends (or fails) early leaves no service behind.
pub struct Service {
    pub child: Child,
    pub root: PathBuf,
    pub state: PathBuf,
    pub stdout_lines: Vec<String>,
    /// Every line the service wrote to stderr so far (its logs).
    pub stderr_lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Drop for Service {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

impl Service {
    /// Starts `rho --root ROOT --state-dir STATE` and waits until it has opened its projects.
    pub fn start(root: &Path, state: &Path) -> Service {
        let args = [
            "--root",
            root.to_str().unwrap(),
            "--state-dir",
            state.to_str().unwrap(),
        ];
        Service::spawn(&args, &[], root, state)
    }

    /// Starts `rho ARGS` with extra environment and waits for "service ready".
    pub fn spawn(args: &[&str], env: &[(&str, &str)], root: &Path, state: &Path) -> Service {
        let mut cmd = rho();
        cmd.args(args).env("RUST_LOG", "info");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rho starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        let stderr_lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = stderr_lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line.clone());
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(line) if line.contains("service ready") => break,
                Ok(_) => {}
                Err(_) if Instant::now() > deadline => panic!("rho did not become ready"),
                Err(_) => {
                    if let Ok(Some(status)) = child.try_wait() {
                        panic!("rho exited early: {status}");
                    }
                }
            }
        }
        std::thread::spawn(move || while rx.recv().is_ok() {});
        let stdout = child.stdout.take().unwrap();
        let mut lines = Vec::new();
        let mut reader = BufReader::new(stdout);
        let expected = if args.contains(&"--root") { 3 } else { 9 };
        for _ in 0..expected {
            let mut l = String::new();
            if reader.read_line(&mut l).unwrap_or(0) == 0 {
                break;
            }
            lines.push(l.trim_end().to_string());
        }
        Service {
            child,
            root: root.to_path_buf(),
            state: state.to_path_buf(),
            stdout_lines: lines,
            stderr_lines,
        }
    }

    /// The port of `http://127.0.0.1:PORT/` from the banner.
    pub fn port(&self) -> u16 {
        self.stdout_lines[1]
            .trim_start_matches("http://127.0.0.1:")
            .trim_end_matches('/')
            .parse()
            .expect("banner URL")
    }

    /// The operator token from the private connection file.
    pub fn token(&self) -> String {
        let text = std::fs::read_to_string(self.state.join("connection.json")).unwrap();
        serde_json::from_str::<serde_json::Value>(&text).unwrap()["token"]
            .as_str()
            .unwrap()
            .to_string()
    }

    /// POSTs an operation as the operator.
    pub fn call(&self, op: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        http(
            self.port(),
            "POST",
            &format!("/api/v2/{op}"),
            Some(&self.token()),
            &[],
            &body.to_string(),
        )
    }

    /// POSTs an operation as the local browser (no credential).
    pub fn call_local(&self, op: &str, body: serde_json::Value) -> (u16, serde_json::Value) {
        http(
            self.port(),
            "POST",
            &format!("/api/v2/{op}"),
            None,
            &[],
            &body.to_string(),
        )
    }

    pub fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM and wait; returns the exit code.
    pub fn terminate(mut self) -> Option<i32> {
        let pid = self.child.id() as i32;
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(pid.to_string())
            .status();
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                return status.code();
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("rho did not stop on SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Creates a project with a few settings through the actor system, then closes it cleanly.
/// Registers it in the registry of `state` (the service's state folder).
pub fn make_project(
    root: &Path,
    state: &Path,
    name: &str,
    settings: usize,
) -> (uuid::Uuid, PathBuf) {
    use actix::Actor;
    use rho_actors::project::ProjectCommand;
    use rho_actors::project_actor::ProjectWrite;
    use rho_actors::service::{CloseAll, CreateProject, GetProject, ServiceActor};
    let system = actix::System::new();
    let out = system.block_on(async {
        let (registry, _) = rho_actors::registry::Registry::open(state).unwrap();
        let service = ServiceActor::new(
            rho_actors::open::ProjectConfig::default(),
            registry,
            root.canonicalize().unwrap(),
        )
        .unwrap()
        .start();
        let info = service
            .send(CreateProject {
                name: name.into(),
                principal: rho_actors::Principal::Local,
            })
            .await
            .unwrap()
            .unwrap();
        let project = service
            .send(GetProject { id: info.id })
            .await
            .unwrap()
            .unwrap();
        for i in 0..settings {
            project
                .send(ProjectWrite {
                    command: ProjectCommand::SetSetting {
                        key: format!("k{i}"),
                        value: Some(format!("v{i}")),
                    },
                    ctx: rho_actors::entity::CommandContext {
                        principal: rho_actors::Principal::Agent("claude-code".into()),
                        time_ms: 1_700_000_000_000 + i as i64,
                        identity: Some((format!("c{i}"), [7; 32])),
                        needs: Vec::new(),
                    },
                })
                .await
                .unwrap()
                .unwrap();
        }
        service.send(CloseAll).await.unwrap();
        (info.id, info.dir)
    });
    drop(system);
    out
}

/// Paths of a project's segment files, oldest first.
pub fn segments(project: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(project.join(".rho/journal"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "seg"))
        .collect();
    v.sort();
    v
}

/// Every file below `dir`, with its size, to prove a read-only command changed nothing.
pub fn listing(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p.clone());
            }
            out.push((p.clone(), e.metadata().map(|m| m.len()).unwrap_or(0)));
        }
    }
    out.sort();
    out
}

/// Lowercase hex SHA-256.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
