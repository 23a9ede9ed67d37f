//! Notebook sessions on an ssh place (a private sshd on loopback): R and Python cells with
//! output, variables, a plot brought back, inspect and interrupt; the start bound with what the
//! server printed; and no process left on the server when the local ssh is killed with -9.

use crate::support::remote::{processes_with, runner_dir, spec, text, Remote};
use crate::support::sshd::Sshd;
use crate::support::{group_alive, shell_script, until};
use rho_kernels::notebook::{
    CellOutcome, InspectRequest, Language, RuntimeLimits, SessionError, SessionEvent, StartError,
};
use rho_kernels::remote::start_session;
use sha2::{Digest, Sha256};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn outcome(events: &[SessionEvent]) -> CellOutcome {
    match events.last() {
        Some(SessionEvent::CellEnded { outcome, .. }) => *outcome,
        other => panic!("no end: {other:?}"),
    }
}

fn variables(events: &[SessionEvent]) -> Vec<String> {
    match events.last() {
        Some(SessionEvent::CellEnded { variables, .. }) => {
            variables.list.iter().map(|v| v.name.clone()).collect()
        }
        other => panic!("no end: {other:?}"),
    }
}

fn plots(events: &[SessionEvent]) -> Vec<rho_kernels::notebook::PlotFile> {
    events
        .iter()
        .filter_map(|e| match e {
            SessionEvent::Plot { plot, .. } => Some(plot.clone()),
            _ => None,
        })
        .collect()
}

/// Cells, a plot, a reading and an interrupt on the place; `code` is the language's pieces.
fn a_session_works_there(language: Language, code: [&str; 5], shown: &str) {
    let sshd = Sshd::start();
    let (control, local) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = Remote::start(spec(&sshd, control.path(), local.path(), language));
    assert!(s.started.pid > 1, "{:?}", s.started);
    assert!(group_alive(s.started.pid), "the runner runs on the server");
    let [set, show, plot, sleep, read] = code;
    let e = s.run(set);
    assert_eq!(outcome(&e), CellOutcome::Done, "{e:?}");
    assert!(variables(&e).contains(&"x".to_string()), "{e:?}");
    let e = s.run(show);
    assert_eq!(text(&e), shown, "{e:?}");
    // The plot's bytes come back to this machine, with their digest.
    let e = s.run(plot);
    assert_eq!(outcome(&e), CellOutcome::Done, "{e:?}");
    let p = plots(&e);
    assert_eq!(p.len(), 1, "{e:?}");
    assert!(p[0].path.starts_with(local.path()), "{:?}", p[0].path);
    let bytes = std::fs::read(&p[0].path).unwrap();
    assert_eq!(&bytes[1..4], b"PNG");
    assert_eq!(bytes.len() as u64, p[0].bytes);
    let hex: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(hex, p[0].sha256);
    let value = s
        .session
        .inspect(InspectRequest {
            name_or_path: "x".into(),
            offset: 0,
            rows: 0,
            sort: None,
        })
        .unwrap();
    assert!(value.to_string().contains("42"), "{value}");
    // Interrupt within remoteSignalTimeoutMs: the cell ends, the values stay.
    let cell = s.send(sleep);
    s.until_printed(cell, "sleeping", Duration::from_secs(20));
    let t = Instant::now();
    s.session.interrupt().unwrap();
    let e = s.collect(cell, Duration::from_secs(10));
    assert_eq!(outcome(&e), CellOutcome::Interrupted, "{e:?}");
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert_eq!(text(&s.run(read)), shown);
    assert_eq!(s.session.interrupt(), Err(SessionError::Idle));
    // Stop: the runner and its folder on the server go.
    let (pgid, dir) = (s.started.pid, runner_dir(s.started.pid));
    s.session.stop();
    let status = s.exited(Duration::from_secs(15));
    assert!(
        status.contains("SIGTERM") || status.starts_with("exit"),
        "{status}"
    );
    until(Duration::from_secs(10), || !group_alive(pgid));
    until(Duration::from_secs(10), || {
        !std::path::Path::new(&dir).exists()
    });
    control_closed(&sshd, control.path());
}

/// Ends the place's multiplexing master.
fn control_closed(sshd: &Sshd, control: &std::path::Path) {
    sshd.place(control).close();
}

#[test]
fn an_r_session_on_an_ssh_place_runs_cells_plots_reads_and_interrupts() {
    a_session_works_there(
        Language::R,
        [
            "x <- 42",
            "x",
            "plot(1:10)",
            "cat('sleeping\\n'); Sys.sleep(30)",
            "x",
        ],
        "[1] 42\n",
    );
}

#[test]
fn a_python_session_on_an_ssh_place_runs_cells_plots_reads_and_interrupts() {
    a_session_works_there(
        Language::Python,
        [
            "x = 42",
            "print(x)",
            "import matplotlib.pyplot as plt\nplt.plot([1, 2, 3])",
            "import time\nprint('sleeping', flush=True)\ntime.sleep(30)",
            "print(x)",
        ],
        "42\n",
    );
}

#[test]
fn killing_the_local_ssh_leaves_no_process_on_the_server() {
    let sshd = Sshd::start();
    let (control, local) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut s = Remote::start(spec(&sshd, control.path(), local.path(), Language::R));
    let (pgid, dir) = (s.started.pid, runner_dir(s.started.pid));
    // A child of the session that would outlive a plain hang-up, and a running cell.
    let e = s.run("system('sleep 3001 &')");
    assert_eq!(outcome(&e), CellOutcome::Done, "{e:?}");
    assert_eq!(processes_with("sleep 3001").len(), 1);
    let cell = s.send("cat('sleeping\\n'); Sys.sleep(60)");
    s.until_printed(cell, "sleeping", Duration::from_secs(20));
    // The session's own ssh (a client of the place's master, which stays).
    let control_arg = format!("ControlPath={}", control.path().display());
    let ssh: Vec<u32> = processes_with(&control_arg);
    assert_eq!(ssh.len(), 1, "one ssh for the session: {ssh:?}");
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(ssh[0] as i32),
        nix::sys::signal::Signal::SIGKILL,
    )
    .unwrap();
    let status = s.exited(Duration::from_secs(10));
    assert!(status.contains("SIGKILL"), "{status}");
    until(Duration::from_secs(10), || !group_alive(pgid));
    until(Duration::from_secs(10), || {
        processes_with("sleep 3001").is_empty()
    });
    until(Duration::from_secs(10), || processes_with(&dir).is_empty());
    until(Duration::from_secs(10), || {
        !std::path::Path::new(&dir).exists()
    });
    control_closed(&sshd, control.path());
}

#[test]
fn a_runner_not_ready_within_the_start_bound_ends_its_ssh_with_what_was_printed() {
    let sshd = Sshd::start();
    let (control, local) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let fake = shell_script(
        local.path(),
        "slow-r",
        "echo loading the site library\nexec sleep 3002",
    );
    let mut sp = spec(&sshd, control.path(), local.path(), Language::R);
    sp.program = fake.to_string_lossy().into_owned();
    sp.limits = RuntimeLimits {
        start_timeout_ms: 2000,
        ..Default::default()
    };
    let (tx, _rx) = channel();
    let t = Instant::now();
    let Err(StartError::Unready { what, printed }) = start_session(sp, tx) else {
        panic!("expected the start bound")
    };
    assert!(t.elapsed() < Duration::from_secs(10), "{:?}", t.elapsed());
    assert!(
        what.contains("remoteStartTimeoutMs") && what.contains("ssh"),
        "{what}"
    );
    assert!(printed.contains("loading the site library"), "{printed:?}");
    until(Duration::from_secs(10), || {
        processes_with("sleep 3002").is_empty()
    });
    control_closed(&sshd, control.path());
}

#[test]
fn a_missing_interpreter_on_the_server_says_so() {
    let sshd = Sshd::start();
    let (control, local) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let mut sp = spec(&sshd, control.path(), local.path(), Language::Python);
    sp.program = "/nowhere/python3".into();
    let (tx, _rx) = channel();
    match start_session(sp, tx) {
        Err(StartError::Exited { status, printed }) => {
            assert!(
                printed.contains("/nowhere/python3"),
                "{status}: {printed:?}"
            )
        }
        Err(e) => panic!("{e}: {}", e.printed()),
        Ok(_) => panic!("a session started without its interpreter"),
    }
    control_closed(&sshd, control.path());
}
