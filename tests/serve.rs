//! Starting and stopping the service on its folders: refusals, the state lock, clean shutdown, kill -9.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use util::{make_project, run, text, Service};

#[test]
fn a_flagged_start_prints_the_machine_line_and_stops_cleanly_on_sigterm() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (_, dir) = make_project(root.path(), state.path(), "p", 2);
    let service = Service::start(root.path(), state.path());
    let first = &service.stdout_lines[0];
    assert!(
        first.starts_with(&format!("rho {}", env!("CARGO_PKG_VERSION"))),
        "{first}"
    );
    assert!(
        first.contains(std::env::consts::OS) && first.contains("pid"),
        "{first}"
    );

    // A second start on the running state is refused.
    let out = run(&[
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        state.path().to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("already running"),
        "{}",
        text(&out.stderr)
    );

    assert_eq!(service.terminate(), Some(0));
    let out = run(&[
        "journal",
        "inspect",
        dir.to_str().unwrap(),
        "--json",
        "--verify",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    let lines = text(&run(&["journal", "inspect", dir.to_str().unwrap(), "--json"]).stdout);
    let last: serde_json::Value = serde_json::from_str(lines.lines().last().unwrap()).unwrap();
    assert_eq!(last["kind"], "journal.clean-shutdown");
}

#[test]
fn a_kill_9_leaves_no_stale_lock_and_the_project_reopens() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (_, dir) = make_project(root.path(), state.path(), "p", 2);
    Service::start(root.path(), state.path()).kill9();
    let service = Service::start(root.path(), state.path());
    assert_eq!(service.terminate(), Some(0));
    let out = run(&["journal", "inspect", dir.to_str().unwrap(), "--verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
}

#[test]
fn bad_folders_are_refused_with_exit_1() {
    let root = tempfile::tempdir().unwrap();
    let missing = root.path().join("nope");
    let out = run(&[
        "--root",
        missing.to_str().unwrap(),
        "--state-dir",
        root.path().join("s").to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("does not exist"));
    let inside = root.path().join("state");
    let out = run(&[
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        inside.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("outside"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(run(&["--no-such-option"]).status.code(), Some(2));
}
