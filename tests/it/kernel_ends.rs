//! Notebook ends through the real `rho` with real Python (issue 15): who asked to interrupt is
//! journaled when asked and survives a kill -9 before the cell ends; maxEndedSessions evicts the
//! session that ended first, and its folder.

use crate::support::poll::until;
use crate::support::Env;
use serde_json::{json, Value};
use std::time::Duration;

fn run(e: &Env, change: &str, code: &str, wait_ms: u64) -> Value {
    e.ok(
        "kernel.run",
        json!({"language": "python", "code": code, "changeId": change, "waitMs": wait_ms}),
    )
}

fn cell(e: &Env, id: &Value) -> Value {
    e.ok("kernel.read", json!({"cellId": id}))["cells"][0].clone()
}

#[test]
fn an_interrupt_asked_before_a_kill_9_is_kept_with_who_asked() {
    let mut e = Env::start(&[], None, "notebook-ask");
    // The cell ignores SIGINT: the ask is journaled, the cell goes on running.
    let deaf = run(
        &e,
        "deaf",
        "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\ntime.sleep(60)",
        0,
    );
    until("the cell runs", Duration::from_secs(20), || {
        cell(&e, &deaf["cellId"])["state"] == "running"
    });
    let asked = e.ok("kernel.interrupt", json!({"cellId": deaf["cellId"]}));
    assert_eq!(asked["state"], "running", "{asked}");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(cell(&e, &deaf["cellId"])["state"], "running");
    e.restart(&[]);
    let c = cell(&e, &deaf["cellId"]);
    assert_eq!(
        (c["end"]["outcome"].as_str(), c["end"]["by"].as_str()),
        (Some("unknown"), Some("operator")),
        "{c}"
    );
    let reason = c["end"]["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("operator had asked to interrupt it"), "{c}");
}

#[test]
fn past_max_ended_sessions_the_session_that_ended_first_is_evicted() {
    let e = Env::start(
        &[],
        Some(json!({"kernel": {"maxEndedSessions": 1}})),
        "notebook-ended",
    );
    let mut ended = Vec::new();
    for i in 0..2 {
        let quit = run(&e, &format!("quit-{i}"), "import os\nos._exit(3)", 20_000);
        assert_eq!(quit["end"]["outcome"], "error", "{quit}");
        let session = quit["sessionId"].clone();
        until("the session ended", Duration::from_secs(20), || {
            let read = e.ok("kernel.read", json!({}));
            read["sessions"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["sessionId"] != session || s["state"] == "ended")
        });
        ended.push(session);
    }
    let read = e.ok("kernel.read", json!({}));
    let ids: Vec<&Value> = read["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["sessionId"])
        .collect();
    assert_eq!(ids, vec![&ended[1]], "{read}");
    // The cells of the evicted session stay (maxCells bounds them).
    assert_eq!(read["cells"].as_array().map(Vec::len), Some(2), "{read}");
    // The evicted session's folder goes with its record; the kept one's stays.
    let folder = |s: &Value| {
        e.dir
            .join(".rho/plugins/kernel/sessions")
            .join(s.as_str().unwrap())
    };
    until(
        "the evicted session's folder is gone",
        Duration::from_secs(10),
        || !folder(&ended[0]).exists(),
    );
    assert!(folder(&ended[1]).is_dir());
}
