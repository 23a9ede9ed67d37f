//! A notebook session's life: the start timeout, interrupt keeping values, stop, and no runner
//! left behind when its parent process is killed with SIGKILL.

use crate::support::notebook::{spec, Live};
use crate::support::{group_alive, shell_script, until};
use rho_kernels::notebook::{self, CellOutcome, Language, RuntimeLimits, SessionEvent, StartError};
use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::Duration;

fn interrupt_keeps_values(language: Language, set: &str, sleep: &str, read: &str, shown: &str) {
    let mut s = Live::start(language);
    assert_eq!(s.run(set).outcome, CellOutcome::Done);
    let cell = s.send(sleep);
    // Interrupt once the cell runs (a SIGINT before the runner read it would only wake its read).
    s.until_printed(cell, "sleeping", Duration::from_secs(20));
    let t = std::time::Instant::now();
    s.session.interrupt().unwrap();
    let c = s.collect(cell, Duration::from_secs(10));
    assert_eq!(c.outcome, CellOutcome::Interrupted, "{:?}", c.events);
    assert!(
        t.elapsed() < Duration::from_secs(5),
        "took {:?}",
        t.elapsed()
    );
    let c = s.run(read);
    assert_eq!(c.outcome, CellOutcome::Done);
    assert_eq!(c.text(), shown);
    assert_eq!(s.session.interrupt(), Err(notebook::SessionError::Idle));
}

#[test]
fn interrupting_r_sys_sleep_keeps_the_session_and_its_values() {
    interrupt_keeps_values(
        Language::R,
        "x <- 42",
        "cat('sleeping\\n'); Sys.sleep(30)",
        "x",
        "[1] 42\n",
    );
}

#[test]
fn interrupting_python_time_sleep_keeps_the_session_and_its_values() {
    interrupt_keeps_values(
        Language::Python,
        "x = 42",
        "import time\nprint('sleeping', flush=True)\ntime.sleep(30)",
        "print(x)",
        "42\n",
    );
}

#[test]
fn a_second_cell_while_one_runs_is_busy() {
    let mut s = Live::start(Language::R);
    let cell = s.send("Sys.sleep(1)");
    assert_eq!(s.session.run(99, "1"), Err(notebook::SessionError::Busy));
    assert_eq!(
        s.collect(cell, Duration::from_secs(10)).outcome,
        CellOutcome::Done
    );
}

#[test]
fn a_runner_not_ready_within_start_timeout_is_killed_with_what_it_printed() {
    let dir = tempfile::tempdir().unwrap();
    let pidfile = dir.path().join("pid");
    let fake = shell_script(
        dir.path(),
        "slow-r",
        &format!(
            "echo $$ > {}\necho warming up\nexec sleep 60",
            pidfile.display()
        ),
    );
    let mut sp = spec(
        dir.path(),
        Language::R,
        RuntimeLimits {
            start_timeout_ms: 1500,
            ..Default::default()
        },
    );
    sp.program = fake;
    let (tx, _rx) = channel();
    let t = std::time::Instant::now();
    let Err(StartError::Timeout { printed }) = notebook::start(sp, tx) else {
        panic!("expected a start timeout")
    };
    assert!(t.elapsed() < Duration::from_secs(8));
    assert!(printed.contains("warming up"), "{printed:?}");
    let pid: u32 = std::fs::read_to_string(&pidfile)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    until(Duration::from_secs(5), || {
        !std::path::Path::new(&format!("/proc/{pid}")).exists()
            || std::fs::read_to_string(format!("/proc/{pid}/stat"))
                .is_ok_and(|s| s.contains(") Z "))
    });
}

#[test]
fn a_runner_that_ends_before_ready_says_what_it_printed() {
    let dir = tempfile::tempdir().unwrap();
    let fake = shell_script(
        dir.path(),
        "no-jsonlite",
        "echo \"there is no package called 'jsonlite'\" >&2\nexit 1",
    );
    let mut sp = spec(dir.path(), Language::R, RuntimeLimits::default());
    sp.program = fake;
    let (tx, _rx) = channel();
    let Err(StartError::Exited { status, printed }) = notebook::start(sp, tx) else {
        panic!("expected the runner to end before it was ready")
    };
    assert_eq!(status, "exit 1");
    assert!(printed.contains("jsonlite"), "{printed:?}");
}

#[test]
fn stop_ends_the_session() {
    let mut s = Live::start(Language::R);
    let cell = s.send("Sys.sleep(30)");
    std::thread::sleep(Duration::from_millis(300));
    s.session.stop();
    let e = loop {
        match s.events.recv_timeout(Duration::from_secs(10)).unwrap() {
            e @ SessionEvent::Exited { .. } => break e,
            SessionEvent::CellEnded { cell: c, .. } if c == cell => {
                panic!("a stopped cell has no end")
            }
            _ => {}
        }
    };
    assert!(matches!(e, SessionEvent::Exited { .. }));
    assert!(s.session.ended());
    assert_eq!(s.session.run(5, "1"), Err(notebook::SessionError::Ended));
    until(Duration::from_secs(5), || !group_alive(s.started.pid));
}

/// The parent process's role in [`killing_the_parent_leaves_no_runner`] (the test binary run
/// again with `RHO_NB_PARENT_DIR`): starts an R session running a long cell, prints the
/// session's process group, then waits to be killed.
#[allow(clippy::print_stdout)] // its one output: the process group, read by the test that runs it
fn parent_role(dir: &std::path::Path) {
    let (tx, _rx) = channel();
    let (session, started) =
        notebook::start(spec(dir, Language::R, RuntimeLimits::default()), tx).unwrap();
    session.run(1, "Sys.sleep(120)").unwrap();
    println!("pgid {}", started.pid);
    std::thread::sleep(Duration::from_secs(120));
}

#[test]
fn killing_the_parent_leaves_no_runner() {
    if let Some(dir) = std::env::var_os("RHO_NB_PARENT_DIR") {
        return parent_role(dir.as_ref());
    }
    let dir = tempfile::Builder::new()
        .prefix("nbk")
        .tempdir_in("/tmp")
        .unwrap();
    let mut parent = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "notebook_life::killing_the_parent_leaves_no_runner",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("RHO_NB_PARENT_DIR", dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(parent.stdout.take().unwrap()).lines();
    let pgid: u32 = loop {
        let line = lines
            .next()
            .expect("the parent printed its session")
            .unwrap();
        // libtest prints the test's name on the same line first.
        if let Some((_, p)) = line.split_once("pgid ") {
            break p.trim().parse().unwrap();
        }
    };
    assert!(group_alive(pgid));
    parent.kill().unwrap(); // SIGKILL
    let _ = parent.wait();
    until(Duration::from_secs(10), || !group_alive(pgid));
}

fn exited(s: &Live) -> String {
    loop {
        if let SessionEvent::Exited { status, .. } =
            s.events.recv_timeout(Duration::from_secs(10)).unwrap()
        {
            return status;
        }
    }
}

#[test]
fn a_runner_that_ignores_sigterm_is_killed_after_stop_grace() {
    let limits = RuntimeLimits {
        stop_grace_ms: 500,
        ..Default::default()
    };
    let mut s = Live::start_with(Language::Python, limits);
    s.run("import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)");
    let t = std::time::Instant::now();
    s.session.stop();
    assert_eq!(exited(&s), "signal SIGKILL");
    assert!(
        t.elapsed() >= Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    until(Duration::from_secs(5), || !group_alive(s.started.pid));
}

#[test]
fn a_cell_that_quits_ends_the_session_with_its_status() {
    let mut s = Live::start(Language::R);
    let cell = s.send("cat('bye\\n'); quit(status = 3)");
    let (status, printed) = loop {
        match s.events.recv_timeout(Duration::from_secs(10)).unwrap() {
            SessionEvent::Exited {
                status,
                printed_tail,
            } => break (status, printed_tail),
            SessionEvent::CellEnded { cell: c, .. } if c == cell => panic!("the cell cannot end"),
            _ => {}
        }
    };
    assert_eq!(status, "exit 3");
    assert!(printed.contains("bye"), "{printed:?}");
    assert!(s.session.ended());
}
