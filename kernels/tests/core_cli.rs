//! The Core CLI's exit codes (0 success, 1 rejection, 2 usage, 3 unavailable, 4 uncertain
//! delivery), the guard's own refusal, and the Core identity.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use rho_kernels::core::{our_version, CoreIdentity};
use std::io::{BufRead, BufReader};
use std::os::unix::net::UnixListener;
use std::process::{Command, Output};
use util::*;

fn core(args: &[&str]) -> Output {
    Command::new(CORE).args(args).output().unwrap()
}

fn code(out: &Output) -> i32 {
    out.status.code().unwrap()
}

#[test]
fn usage_errors_exit_2_and_no_host_exits_3() {
    let p = Project::new();
    let dir = p.path();
    let dir = dir.to_str().unwrap();
    assert_eq!(code(&core(&["core", "ping"])), 2, "missing --project");
    assert_eq!(
        code(&core(&["core", "lookup", "--project", dir])),
        2,
        "missing --operation"
    );
    assert_eq!(code(&core(&["core", "bogus"])), 2);
    for args in [
        vec!["core", "ping", "--project", dir],
        vec!["core", "list", "--project", dir],
        vec!["core", "lookup", "--project", dir, "--operation", "x"],
        vec!["core", "cancel", "--project", dir, "--operation", "x"],
    ] {
        let out = core(&args);
        assert_eq!(code(&out), 3, "{args:?}");
        assert!(out.stdout.is_empty());
        assert!(String::from_utf8_lossy(&out.stderr).contains("no Host is serving"));
    }
}

#[test]
fn success_is_0_with_json_and_a_rejection_is_1() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    let dir = p.path();
    let dir = dir.to_str().unwrap();
    let out = core(&["core", "ping", "--project", dir]);
    assert_eq!(code(&out), 0);
    let pong: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pong["reply"], "pong");
    assert_eq!(pong["coreVersion"], our_version());

    let spec_file = p.path().join("spec.json");
    let spec = p.spec("op-cli", "cat('hello from the CLI\\n')");
    std::fs::write(&spec_file, serde_json::to_vec(&spec).unwrap()).unwrap();
    let spec_arg = spec_file.to_str().unwrap();
    assert_eq!(
        code(&core(&[
            "core",
            "submit",
            "--project",
            dir,
            "--spec",
            spec_arg
        ])),
        0
    );
    let out = core(&["core", "wait", "--project", dir, "--operation", "op-cli"]);
    assert_eq!(code(&out), 0);
    let done: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(done["record"]["exitCode"], 0);

    let out = core(&["core", "lookup", "--project", dir, "--operation", "nope"]);
    assert_eq!(code(&out), 1);
    let refused: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(refused["code"], "not_found");
    std::fs::write(&spec_file, b"{not json").unwrap();
    assert_eq!(
        code(&core(&[
            "core",
            "submit",
            "--project",
            dir,
            "--spec",
            spec_arg
        ])),
        1
    );
}

#[test]
fn a_submit_whose_reply_is_lost_exits_4_and_a_read_exits_3() {
    let p = Project::new();
    // A listener that takes the request and closes without a reply.
    let listener = UnixListener::bind(p.path().join(".rho/host.sock")).unwrap();
    let swallow = std::thread::spawn(move || {
        for _ in 0..2 {
            let (stream, _) = listener.accept().unwrap();
            let mut line = String::new();
            BufReader::new(&stream).read_line(&mut line).unwrap();
            assert!(line.ends_with('\n'));
        }
    });
    let spec_file = p.path().join("spec.json");
    let spec = p.spec("op-lost", "1");
    std::fs::write(&spec_file, serde_json::to_vec(&spec).unwrap()).unwrap();
    let dir = p.path();
    let dir = dir.to_str().unwrap();
    let out = core(&[
        "core",
        "submit",
        "--project",
        dir,
        "--spec",
        spec_file.to_str().unwrap(),
    ]);
    assert_eq!(code(&out), 4);
    assert!(String::from_utf8_lossy(&out.stderr).contains("uncertain"));
    assert_eq!(
        code(&core(&[
            "core",
            "lookup",
            "--project",
            dir,
            "--operation",
            "x"
        ])),
        3
    );
    swallow.join().unwrap();
}

#[test]
fn the_guard_refuses_to_run_outside_its_own_process_group() {
    let out = core(&["core", "guard", "--", "/bin/echo", "should not run"]);
    assert_eq!(code(&out), 2);
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("process group"));
}

#[test]
fn the_core_identity_has_path_digest_and_version() {
    let id = CoreIdentity::of(std::path::Path::new(CORE)).unwrap();
    assert_eq!(id.path, std::fs::canonicalize(CORE).unwrap());
    assert_eq!(id.sha256, digest_file(CORE));
    // Not this test executable, so its version comes from `--version`.
    assert_eq!(id.version, our_version());
    let p = Project::new();
    let fake = shell_script(&p.path(), "fake-core", "echo 'rho 9.9.9-test'");
    assert_eq!(CoreIdentity::of(&fake).unwrap().version, "rho 9.9.9-test");
    let broken = shell_script(&p.path(), "broken-core", "exit 3");
    let err = CoreIdentity::of(&broken).unwrap_err().to_string();
    assert!(
        err.contains("broken-core") && err.contains("--version"),
        "{err}"
    );
    assert!(CoreIdentity::of(&p.path().join("missing")).is_err());
}

fn digest_file(path: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(std::fs::read(path).unwrap())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[test]
fn a_host_started_by_the_cli_outlives_the_cli() {
    let p = Project::new();
    let dir = p.path();
    let dir = dir.to_str().unwrap();
    let out = core(&["core", "start", "--project", dir]);
    assert_eq!(code(&out), 0, "{}", String::from_utf8_lossy(&out.stderr));
    let started: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(started["owned"], true);
    // The starting process is gone; the Host still answers.
    let out = core(&["core", "ping", "--project", dir]);
    assert_eq!(code(&out), 0);
    let pong: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(pong["pid"], started["pid"]);
    let again: serde_json::Value =
        serde_json::from_slice(&core(&["core", "start", "--project", dir]).stdout).unwrap();
    assert_eq!(
        (&again["pid"], &again["owned"]),
        (&started["pid"], &serde_json::json!(false))
    );
    assert_eq!(code(&core(&["core", "shutdown", "--project", dir])), 0);
    let pid = started["pid"].as_u64().unwrap() as u32;
    until(T, || !group_alive(pid));
}
