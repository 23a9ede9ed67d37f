//! The Host's life: kill -9 takes R's group with it and a new Host reports the run honestly
//! without re-running it; idle exit; Shutdown; start and ownership; the socket path bound.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use rho_kernels::host::client::{self, HostClientError};
use rho_kernels::host::paths;
use rho_kernels::host::proto::{HostErrorCode, HostReply, HostRequest, RunState, StopState};
use std::path::Path;
use std::process::Command;
use std::time::Duration;
use util::*;

const SLEEP_AND_COUNT: &str = r#"
cat("ran\n", file = "count.txt", append = TRUE)
cat(strrep("x", 500), "\n")
Sys.sleep(60)
"#;

#[test]
fn kill_9_of_the_host_kills_r_and_a_new_host_reports_the_run_without_rerunning_it() {
    let p = Project::new();
    let mut host = HostProc::start(&p, 60_000);
    let mut spec = p.spec("op-lost", SLEEP_AND_COUNT);
    spec.max_log_bytes = 100;
    let running = p.submit(&spec);
    let pgid = running.pid.unwrap();
    until(T, || {
        p.read("count.txt") == "ran\n" && p.lookup("op-lost").stdout.truncated
    });
    assert!(group_alive(pgid));

    host.child.kill().unwrap(); // SIGKILL
    host.child.wait().unwrap();
    until(Duration::from_secs(5), || !group_alive(pgid));
    match client::request(&p.path(), &HostRequest::Ping, T) {
        Err(HostClientError::NotRunning { .. }) => {}
        other => panic!("a dead Host must read as not running: {other:?}"),
    }

    let _second = HostProc::start(&p, 60_000);
    let lost = p.lookup("op-lost");
    assert_eq!(lost.state, RunState::Exited);
    assert!(lost.lost_with_host);
    assert_eq!(
        (lost.exit_code, lost.signal, lost.ended_at_ms),
        (None, None, None)
    );
    assert_eq!(lost.pid, Some(pgid));
    // What was written while it ran survives: the kept head and the truncation flag.
    assert_eq!((lost.stdout.bytes, lost.stdout.truncated), (100, true));
    // The same delivery again answers that record and runs nothing.
    assert_eq!(p.submit(&spec), lost);
    std::thread::sleep(Duration::from_millis(800));
    assert_eq!(p.read("count.txt"), "ran\n");
    // A cancel cannot confirm anything about it.
    let cancelled = record(p.ask(&HostRequest::Cancel {
        operation_id: "op-lost".into(),
        requested_by: "local".into(),
    }));
    assert_eq!(cancelled.stop.unwrap().state, StopState::Unconfirmed);
    // A repair under a new operationId runs.
    p.submit(&p.spec(
        "op-repair",
        "cat('repaired\\n', file = 'count.txt', append = TRUE)",
    ));
    assert_eq!(p.wait("op-repair").exit_code, Some(0));
    assert_eq!(p.read("count.txt"), "ran\nrepaired\n");
}

#[test]
fn an_idle_host_exits_but_not_while_a_run_is_running() {
    let p = Project::new();
    let mut host = HostProc::start(&p, 300);
    p.submit(&p.spec("op-idle", "Sys.sleep(1.5)"));
    assert!(
        !host.exited_within(Duration::from_millis(1200)),
        "exited with a run running"
    );
    assert_eq!(p.wait("op-idle").exit_code, Some(0));
    assert!(host.exited_within(Duration::from_secs(5)), "no idle exit");
    assert!(!p.path().join(".rho/host.sock").exists());
    // The record outlives the Host.
    let _next = HostProc::start(&p, 60_000);
    assert_eq!(p.lookup("op-idle").exit_code, Some(0));
}

#[test]
fn shutdown_stops_running_runs_in_the_name_of_the_requester_then_exits() {
    let p = Project::new();
    let mut host = HostProc::start(&p, 60_000);
    let a = p.submit(&p.spec("op-a", "Sys.sleep(60)"));
    let b = p.submit(&p.spec("op-b", "Sys.sleep(60)"));
    p.submit(&p.spec("op-c", "1"));
    p.wait("op-c");
    std::thread::sleep(Duration::from_millis(500));
    let reply = client::request(
        &p.path(),
        &HostRequest::Shutdown {
            requested_by: "shutdown".into(),
        },
        Duration::from_secs(30),
    )
    .unwrap();
    let HostReply::Records { records } = reply else {
        panic!("{reply:?}")
    };
    let ids: Vec<_> = records.iter().map(|r| r.operation_id.as_str()).collect();
    assert_eq!(ids, ["op-a", "op-b"]);
    for r in &records {
        assert_eq!(r.state, RunState::Exited);
        let stop = r.stop.as_ref().unwrap();
        assert_eq!(
            (stop.state, stop.requested_by.as_str()),
            (StopState::Stopped, "shutdown")
        );
    }
    assert!(host.exited_within(Duration::from_secs(5)));
    assert!(!group_alive(a.pid.unwrap()) && !group_alive(b.pid.unwrap()));
    let _next = HostProc::start(&p, 60_000);
    assert_eq!(p.lookup("op-c").stop, None);
}

#[test]
fn start_spawns_one_detached_host_and_reports_an_existing_one_as_not_owned() {
    let p = Project::new();
    let core = Path::new(CORE);
    let first = client::start(core, &p.path(), T).unwrap();
    assert!(first.owned);
    let again = client::start(core, &p.path(), T).unwrap();
    assert_eq!((again.pid, again.owned), (first.pid, false));
    // Its own session: not in this test's process group.
    let pgid = nix::unistd::getpgid(Some(nix::unistd::Pid::from_raw(first.pid as i32))).unwrap();
    assert_eq!(pgid.as_raw(), first.pid as i32);
    assert!(p.path().join(".rho/host/host.log").exists());
    // A second Host on the same project exits at once (the lock), leaving the first serving.
    let status = Command::new(CORE)
        .args(["core", "host", "--project"])
        .arg(p.path())
        .status()
        .unwrap();
    assert!(status.success());
    match p.ask(&HostRequest::Ping) {
        HostReply::Pong { pid, .. } => assert_eq!(pid, first.pid),
        other => panic!("{other:?}"),
    }
    let reply = p.ask(&HostRequest::Shutdown {
        requested_by: "test".into(),
    });
    assert_eq!(reply, HostReply::Records { records: vec![] });
    until(T, || !group_alive(first.pid));
}

#[test]
fn a_socket_path_over_the_bound_is_refused_naming_path_and_length() {
    let p = Project::new();
    let base = p.path();
    let room = paths::SOCKET_PATH_MAX - base.as_os_str().len() - "/.rho/host.sock".len();
    let long = base.join("d".repeat(room)); // one byte over (the joining slash)
    std::fs::create_dir_all(long.join(".rho")).unwrap();
    let expected = long.join(".rho/host.sock");
    let bytes = expected.as_os_str().len();
    assert_eq!(bytes, paths::SOCKET_PATH_MAX + 1);

    let err = client::start(Path::new(CORE), &long, T).unwrap_err();
    let text = err.to_string();
    assert!(text.contains(&expected.display().to_string()), "{text}");
    assert!(text.contains(&format!("{bytes} bytes")), "{text}");
    assert!(
        !long.join(".rho/host").exists(),
        "nothing may be started or created"
    );

    let out = Command::new(CORE)
        .args(["core", "host", "--project"])
        .arg(&long)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains(&format!("{bytes} bytes")), "{stderr}");
}

#[test]
fn a_submit_during_shutdown_is_refused_and_not_recorded() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    p.submit(&p.spec("op-long", "Sys.sleep(60)"));
    std::thread::sleep(Duration::from_millis(300));
    let project = p.path();
    let stopper = std::thread::spawn(move || {
        client::request(
            &project,
            &HostRequest::Shutdown {
                requested_by: "shutdown".into(),
            },
            Duration::from_secs(30),
        )
    });
    // While the Host waits for op-long to stop, new work is refused.
    until(T, || {
        matches!(
            client::request(&p.path(), &HostRequest::Ping, T),
            Ok(HostReply::Error {
                code: HostErrorCode::ShuttingDown,
                ..
            }) | Err(_)
        )
    });
    if let Ok(reply) = client::request(
        &p.path(),
        &HostRequest::Submit(Box::new(p.spec("op-late", "1"))),
        T,
    ) {
        match reply {
            HostReply::Error { code, .. } => assert_eq!(code, HostErrorCode::ShuttingDown),
            other => panic!("{other:?}"),
        }
    }
    assert!(!paths::record_dir(&p.path(), "op-late").exists());
    assert!(stopper.join().unwrap().is_ok());
}

#[test]
fn an_in_process_host_serves_and_returns_idle() {
    use rho_kernels::host::server::{self, HostConfig, HostExit};
    let p = Project::new();
    let config = HostConfig {
        project: p.path(),
        guard: vec![CORE.into(), "core".into(), "guard".into(), "--".into()],
        idle: Duration::from_millis(300),
        new_session: false,
        lock_wait: Duration::from_secs(5),
    };
    let host = std::thread::spawn(move || server::run(config));
    until(T, || {
        matches!(
            client::request(&p.path(), &HostRequest::Ping, T),
            Ok(HostReply::Pong { .. })
        )
    });
    p.submit(&p.spec("op-in", "cat('in process\\n')"));
    assert_eq!(p.wait("op-in").exit_code, Some(0));
    assert_eq!(host.join().unwrap().unwrap(), HostExit::Idle);
    assert!(!p.path().join(".rho/host.sock").exists());
}

#[test]
fn sigterm_to_the_host_stops_its_runs_in_the_name_of_system() {
    let p = Project::new();
    let mut host = HostProc::start(&p, 60_000);
    let running = p.submit(&p.spec("op-term", "Sys.sleep(60)"));
    std::thread::sleep(Duration::from_millis(500));
    let pid = nix::unistd::Pid::from_raw(host.pid() as i32);
    nix::sys::signal::kill(pid, nix::sys::signal::Signal::SIGTERM).unwrap();
    assert!(
        host.exited_within(Duration::from_secs(10)),
        "the Host did not stop"
    );
    assert_eq!(host.child.wait().unwrap().code(), Some(0));
    assert!(!group_alive(running.pid.unwrap()));
    let _next = HostProc::start(&p, 60_000);
    let r = p.lookup("op-term");
    assert!(!r.lost_with_host, "{r:?}");
    assert_eq!(r.signal, Some(nix::sys::signal::Signal::SIGTERM as i32));
    let stop = r.stop.unwrap();
    assert_eq!(
        (stop.state, stop.requested_by.as_str()),
        (StopState::Stopped, "system")
    );
}
