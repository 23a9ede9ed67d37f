//! The one support module of the kernels' test binary: a short temporary project, RunSpecs, a
//! real Host process (the crate's `rho-core` binary) shut down and killed on drop, and polling.
#![allow(dead_code, unreachable_pub)]

use nix::sys::signal::killpg;
use nix::unistd::Pid;
use rho_kernels::host::client;
use rho_kernels::host::paths;
use rho_kernels::host::proto::{HostRecord, HostReply, HostRequest, RunSpec};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub mod notebook;
pub mod remote;
pub mod serverctl;
pub mod slurm;
pub mod sshd;

pub const CORE: &str = env!("CARGO_BIN_EXE_rho-core");
pub const T: Duration = Duration::from_secs(10);

/// A script that says it is running (see [`Project::until_started`]), then sleeps for a minute.
pub const STARTED: &str = "cat('started\\n')\nSys.sleep(60)";

/// A project folder with `.rho/` under /tmp (short, so the socket path fits).
pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    pub fn new() -> Self {
        let dir = tempfile::Builder::new()
            .prefix("rk")
            .tempdir_in("/tmp")
            .unwrap();
        std::fs::create_dir(dir.path().join(".rho")).unwrap();
        Self { dir }
    }

    /// The canonical project path.
    pub fn path(&self) -> PathBuf {
        std::fs::canonicalize(self.dir.path()).unwrap()
    }

    pub fn spec(&self, op: &str, script: &str) -> RunSpec {
        let p = self.path();
        let run = p.join("runs").join(op);
        RunSpec {
            operation_id: op.into(),
            request_digest: digest(script),
            rscript: "Rscript".into(),
            script_name: "analysis.R".into(),
            script: script.into(),
            output_directory: run.join("artifacts"),
            run_directory: run,
            args: vec![],
            working_directory: p.clone(),
            library: p.join(".rho").join("library"),
            artifacts: vec![],
            max_log_bytes: 1 << 20,
            stop_grace_ms: 3000,
        }
    }

    pub fn ask(&self, request: &HostRequest) -> HostReply {
        client::request(&self.path(), request, T).unwrap()
    }

    pub fn submit(&self, spec: &RunSpec) -> HostRecord {
        record(self.ask(&HostRequest::Submit(Box::new(spec.clone()))))
    }

    pub fn wait(&self, op: &str) -> HostRecord {
        let reply = client::request(
            &self.path(),
            &HostRequest::Wait {
                operation_id: op.into(),
                timeout_ms: 60_000,
            },
            Duration::from_secs(70),
        )
        .unwrap();
        record(reply)
    }

    pub fn lookup(&self, op: &str) -> HostRecord {
        record(self.ask(&HostRequest::Lookup {
            operation_id: op.into(),
        }))
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path().join(rel)).unwrap_or_default()
    }

    /// Waits until run `op` is running its script: the script's first line ([`STARTED`]) is
    /// in the run's stdout.
    pub fn until_started(&self, op: &str) {
        let stdout = paths::stdout_path(&self.path(), op);
        until(T, || {
            std::fs::read_to_string(&stdout).is_ok_and(|s| s.contains("started"))
        });
    }
}

/// A stand-in digest: SHA-256 hex of the text.
pub fn digest(text: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

pub fn record(reply: HostReply) -> HostRecord {
    match reply {
        HostReply::Record { record } => record,
        other => panic!("expected a record, got {other:?}"),
    }
}

/// A Host process of the `rho-core` binary, shut down (then killed) on drop.
pub struct HostProc {
    pub child: Child,
    pub project: PathBuf,
}

impl HostProc {
    pub fn start(project: &Project, idle_ms: u64) -> Self {
        Self::start_with_env(project, idle_ms, &[])
    }

    pub fn start_with_env(project: &Project, idle_ms: u64, env: &[(&str, &str)]) -> Self {
        let child = Command::new(CORE)
            .args(["core", "host", "--project"])
            .arg(project.path())
            .env("RHO_HOST_IDLE_MS", idle_ms.to_string())
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let host = Self {
            child,
            project: project.path(),
        };
        until(T, || {
            matches!(
                client::request(&host.project, &HostRequest::Ping, T),
                Ok(HostReply::Pong { .. })
            )
        });
        host
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits for the process to end by itself.
    pub fn exited_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for HostProc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = client::request(
                &self.project,
                &HostRequest::Shutdown {
                    requested_by: "test".into(),
                },
                Duration::from_secs(15),
            );
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Polls `cond` until it holds; panics after `limit`.
pub fn until(limit: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + limit;
    while !cond() {
        assert!(
            Instant::now() < deadline,
            "condition not met within {limit:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether any process is left in the group `pgid` (`kill(-pgid, 0)`; on Linux a member that
/// is only a zombie waiting for init to reap it does not count).
pub fn group_alive(pgid: u32) -> bool {
    if killpg(Pid::from_raw(pgid as i32), None).is_err() {
        return false;
    }
    if !cfg!(target_os = "linux") {
        return true;
    }
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return true;
    };
    entries.flatten().any(|e| {
        let stat = std::fs::read_to_string(e.path().join("stat")).unwrap_or_default();
        // pid (comm) state ppid pgrp ...: comm may hold spaces, so split after the last ')'.
        let Some((_, rest)) = stat.rsplit_once(')') else {
            return false;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        fields.len() > 2 && fields[2] == pgid.to_string() && fields[0] != "Z"
    })
}

/// An executable shell script (a stand-in program where a test needs behaviour R lacks).
pub fn shell_script(dir: &Path, name: &str, body: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}
