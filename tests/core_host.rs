//! `rho core`: the Core Host through the real `rho` binary (its guard is `rho core guard`), with
//! real R; and its CLI exit codes.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use rho_kernels::host::client;
use rho_kernels::host::proto::{HostReply, HostRequest, RunSpec, RunState};
use std::path::Path;
use std::time::Duration;
use util::{run, text};

fn project() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("rc")
        .tempdir_in("/tmp")
        .unwrap();
    std::fs::create_dir(dir.path().join(".rho")).unwrap();
    dir
}

#[test]
fn rho_core_starts_a_host_that_runs_r_and_stops_on_request() {
    let dir = project();
    let p = std::fs::canonicalize(dir.path()).unwrap();
    let t = Duration::from_secs(20);
    let started = client::start(Path::new(env!("CARGO_BIN_EXE_rho")), &p, t).unwrap();
    assert!(started.owned);
    let run_dir = p.join("runs/op-1");
    let spec = RunSpec {
        operation_id: "op-1".into(),
        request_digest: "b".repeat(64),
        rscript: "Rscript".into(),
        script_name: "hello.R".into(),
        script: "out <- commandArgs(TRUE)[1]; dir.create(out); writeLines('hi', file.path(out, 'hi.txt'))".into(),
        output_directory: run_dir.join("artifacts"),
        run_directory: run_dir.clone(),
        args: vec![],
        working_directory: p.clone(),
        library: p.join(".rho/library"),
        artifacts: vec!["hi.txt".into()],
        max_log_bytes: 65536,
        stop_grace_ms: 3000,
    };
    client::request(&p, &HostRequest::Submit(Box::new(spec)), t).unwrap();
    let wait = HostRequest::Wait {
        operation_id: "op-1".into(),
        timeout_ms: 30_000,
    };
    let HostReply::Record { record } = client::request(&p, &wait, Duration::from_secs(40)).unwrap()
    else {
        panic!("no record")
    };
    assert_eq!(
        (record.state, record.exit_code),
        (RunState::Exited, Some(0))
    );
    assert_eq!(record.inventory.unwrap()[0].bytes, Some(3));

    let dir_arg = p.to_str().unwrap();
    let out = run(&["core", "list", "--project", dir_arg]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"op-1\""));
    let out = run(&[
        "core",
        "shutdown",
        "--project",
        dir_arg,
        "--requested-by",
        "shutdown",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while run(&["core", "ping", "--project", dir_arg]).status.code() != Some(3) {
        assert!(
            std::time::Instant::now() < deadline,
            "the Host did not exit"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn rho_core_usage_is_2_and_no_host_is_3() {
    let dir = project();
    let dir_arg = dir.path().to_str().unwrap();
    assert_eq!(run(&["core", "ping"]).status.code(), Some(2));
    let out = run(&["core", "lookup", "--project", dir_arg, "--operation", "x"]);
    assert_eq!(out.status.code(), Some(3));
    assert!(out.stdout.is_empty());
}
