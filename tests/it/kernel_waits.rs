//! Notebook waits through the real `rho` with real R and Python (issue 15): a run waiting for a
//! long cell holds no read and no interrupt, `maxWaitMs` returns the cell as it stands,
//! `kernel.stop` ends the running cell `error` and the waiting ones `not-run`, `kernel.changed`
//! shows output while a cell runs, and a session that cannot start ends every cell that waited
//! for it `not-run` with what it printed, in one start.

use crate::support::poll::until;
use crate::support::{Env, Events};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn run(e: &Env, language: &str, change: &str, code: &str, wait_ms: u64) -> Value {
    e.ok(
        "kernel.run",
        json!({"language": language, "code": code, "changeId": change, "waitMs": wait_ms}),
    )
}

fn cell(e: &Env, id: &Value) -> Value {
    e.ok("kernel.read", json!({"cellId": id}))["cells"][0].clone()
}

fn text(cell: &Value) -> String {
    cell["output"]
        .as_array()
        .map(|a| a.iter().filter_map(|c| c["text"].as_str()).collect())
        .unwrap_or_default()
}

/// Calls `op` as the operator and answers how long it took.
fn timed(e: &Env, op: &str, body: Value) -> (Value, Duration) {
    let t = Instant::now();
    let v = e.ok(op, body);
    (v, t.elapsed())
}

#[test]
fn a_run_waiting_for_a_long_cell_holds_no_read_no_inspect_and_no_interrupt() {
    let e = Env::start(&[], None, "notebook-hold");
    run(&e, "r", "keep", "kept <- 7", 60_000);
    std::thread::scope(|s| {
        // The caller waits up to a minute for a cell of 30 s.
        let held = s.spawn(|| {
            let t = Instant::now();
            (run(&e, "r", "long", "Sys.sleep(30)", 60_000), t.elapsed())
        });
        let mut long = Value::Null;
        until("the long cell runs", Duration::from_secs(20), || {
            let read = e.ok("kernel.read", json!({}));
            long = read["cells"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["changeId"] == "long")
                .cloned()
                .unwrap_or(Value::Null);
            long["state"] == "running"
        });
        // While it waits: a read, an inspect and an interrupt answer at once.
        let (_, read) = timed(&e, "kernel.read", json!({}));
        let (busy, inspect) = timed(
            &e,
            "kernel.inspect",
            json!({"language": "r", "path": "kept"}),
        );
        assert_eq!(busy["answer"], "busy", "{busy}");
        let (asked, interrupt) = timed(&e, "kernel.interrupt", json!({"cellId": long["cellId"]}));
        assert_eq!(asked["cellId"], long["cellId"]);
        for (what, took) in [
            ("read", read),
            ("inspect", inspect),
            ("interrupt", interrupt),
        ] {
            assert!(took < Duration::from_secs(5), "{what} waited {took:?}");
        }
        // The waiting run answers with the interrupted cell, long before the cell's 30 s.
        let (ended, took) = held.join().unwrap();
        assert_eq!(ended["end"]["outcome"], "interrupted", "{ended}");
        assert_eq!(ended["end"]["by"], "operator", "{ended}");
        assert!(took < Duration::from_secs(25), "the run waited {took:?}");
    });
    // The session and its values stayed.
    let after = run(&e, "r", "after", "kept + 1", 60_000);
    assert!(text(&after).contains("[1] 8"), "{after}");
}

#[test]
fn max_wait_ms_returns_the_cell_as_it_stands_and_it_ends_later() {
    let e = Env::start(
        &[],
        Some(json!({"kernel": {"maxWaitMs": 1000}})),
        "notebook-maxwait",
    );
    run(&e, "python", "warm", "1", 60_000);
    let t = Instant::now();
    // Asks for a minute; kernel.maxWaitMs (1 s) is what it gets.
    let c = run(
        &e,
        "python",
        "slow",
        "import time\nprint('begun', flush=True)\ntime.sleep(4)\n'over'",
        60_000,
    );
    let took = t.elapsed();
    // Answered before the cell ended: as it stands, after at least maxWaitMs.
    assert_eq!(c["state"], "running", "{c}");
    assert!(c["end"].is_null(), "{c}");
    assert!(
        took >= Duration::from_millis(1000),
        "answered after {took:?}"
    );
    until("the cell ends", Duration::from_secs(20), || {
        cell(&e, &c["cellId"])["end"]["outcome"] == "done"
    });
    assert!(text(&cell(&e, &c["cellId"])).contains("'over'"));
}

#[test]
fn stop_ends_the_running_cell_with_an_error_and_the_waiting_ones_not_run() {
    let e = Env::start(&[], None, "notebook-stop");
    let long = run(&e, "r", "long", "Sys.sleep(30)", 0);
    until("the long cell runs", Duration::from_secs(20), || {
        cell(&e, &long["cellId"])["state"] == "running"
    });
    let w1 = run(&e, "r", "w1", "1", 0);
    let w2 = run(&e, "r", "w2", "2", 0);
    assert_eq!(
        (w1["state"].as_str(), w2["state"].as_str()),
        (Some("waiting"), Some("waiting"))
    );
    let session = long_session(&e, &long);
    let (status, v) = e.local("kernel.stop", json!({"sessionId": session}));
    assert_eq!(status, 200, "{v}");
    until("the running cell ended", Duration::from_secs(20), || {
        cell(&e, &long["cellId"])["state"] == "ended"
    });
    let c = cell(&e, &long["cellId"]);
    assert_eq!(
        (c["end"]["outcome"].as_str(), c["end"]["by"].as_str()),
        (Some("error"), Some("local")),
        "{c}"
    );
    for w in [&w1, &w2] {
        let c = cell(&e, &w["cellId"]);
        assert_eq!(c["end"]["outcome"], "not-run", "{c}");
        assert!(c["startedAtMs"].is_null(), "{c}");
    }
    let read = e.ok("kernel.read", json!({}));
    let s = &read["sessions"][0];
    assert_eq!(
        (
            s["state"].as_str(),
            s["end"]["reason"].as_str(),
            s["end"]["by"].as_str()
        ),
        (Some("ended"), Some("stopped"), Some("local")),
        "{read}"
    );
    // The next cell starts a new session.
    let next = run(&e, "r", "next", "3", 60_000);
    assert_eq!(next["end"]["outcome"], "done", "{next}");
    assert_ne!(next["sessionId"], s["sessionId"]);
}

fn long_session(e: &Env, c: &Value) -> String {
    cell(e, &c["cellId"])["sessionId"]
        .as_str()
        .unwrap()
        .to_string()
}

/// Opens the event stream, runs `code` (which prints `first`, sleeps, prints `second`) and reads
/// the cell at each `kernel.changed`: `first` is seen while the cell still runs.
fn output_is_seen_while_the_cell_runs(language: &str, code: &str) {
    let e = Env::start(&[], None, "notebook-live");
    run(&e, language, "warm", "1", 60_000);
    let mut events = Events::open(e.service.port(), &format!("?projectId={}", e.project), None);
    let c = run(&e, language, "live", code, 0);
    let id = c["cellId"].clone();
    let mut live_seen = false;
    let deadline = Instant::now() + Duration::from_secs(30);
    while Instant::now() < deadline {
        let Some((_, kind, data)) = events.next_frame() else {
            break;
        };
        if kind != "kernel.changed" || data["cellId"] != id {
            continue;
        }
        let now = cell(&e, &id);
        // What was printed before the sleep, while the cell sleeps.
        if now["state"] == "running" && text(&now) == "first\n" {
            live_seen = true;
        }
        if now["state"] == "ended" {
            break;
        }
    }
    assert!(
        live_seen,
        "no kernel.changed showed the output of the running cell"
    );
    until("the cell ends", Duration::from_secs(20), || {
        cell(&e, &id)["state"] == "ended"
    });
    let done = cell(&e, &id);
    assert!(
        text(&done).contains("first") && text(&done).contains("second"),
        "{done}"
    );
}

#[test]
fn kernel_changed_shows_r_output_before_the_cell_ends() {
    output_is_seen_while_the_cell_runs("r", "cat('first\\n')\nSys.sleep(2)\ncat('second\\n')");
}

#[test]
fn kernel_changed_shows_python_output_before_the_cell_ends() {
    output_is_seen_while_the_cell_runs(
        "python",
        "import time\nprint('first')\ntime.sleep(2)\nprint('second')",
    );
}

#[test]
fn a_session_that_cannot_start_ends_every_cell_that_waited_for_it_not_run_in_one_start() {
    let work = tempfile::tempdir().unwrap();
    // A "python" that prints and never says ready.
    let stuck = work.path().join("stuck-python");
    std::fs::write(
        &stuck,
        "#!/bin/sh\necho 'stuck python says hello' >&2\nexec sleep 60\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&stuck, std::fs::Permissions::from_mode(0o755)).unwrap();
    let e = Env::start(
        &["--python", stuck.to_str().unwrap()],
        Some(json!({"kernel": {"startTimeoutMs": 3000}})),
        "notebook-stuck",
    );
    let e = &e;
    std::thread::scope(|s| {
        let first = s.spawn(|| run(e, "python", "a", "1", 0));
        until("the session is starting", Duration::from_secs(10), || {
            let read = e.ok("kernel.read", json!({}));
            read["sessions"][0]["state"] == "starting"
        });
        // Two more cells come while the start is under way.
        let more: Vec<_> = ["b", "c"]
            .into_iter()
            .map(|change| s.spawn(move || run(e, "python", change, "2", 0)))
            .collect();
        let t = Instant::now();
        let mut cells = vec![first.join().unwrap()];
        cells.extend(more.into_iter().map(|h| h.join().unwrap()));
        // One start's timeout, not one per cell.
        assert!(t.elapsed() < Duration::from_secs(7), "{:?}", t.elapsed());
        for c in &cells {
            assert_eq!(c["end"]["outcome"], "not-run", "{c}");
            let reason = c["end"]["reason"].as_str().unwrap_or_default();
            assert!(reason.contains("stuck python says hello"), "{c}");
            assert!(reason.contains("startTimeoutMs"), "{c}");
        }
    });
    let read = e.ok("kernel.read", json!({}));
    let sessions = read["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1, "one start for the three cells: {read}");
    assert_eq!(sessions[0]["end"]["reason"], "start-failed", "{read}");
    // A cell that comes after the failure tries a start of its own.
    let later = run(e, "python", "d", "3", 0);
    assert_eq!(later["end"]["outcome"], "not-run", "{later}");
    let read = e.ok("kernel.read", json!({}));
    assert_eq!(read["sessions"].as_array().unwrap().len(), 2, "{read}");
}
