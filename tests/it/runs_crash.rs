//! Issue 13: the crash window between journaling `sending` and journaling the Host's reply. The
//! service aborts (as kill -9 would) at a fail point, restarts, and recovery settles the run from
//! what the Host says: delivered at most once, never re-sent by itself.
//!
//! Needs `--features failpoints` (the service reads FAILPOINTS at start).

use crate::support::Env;
use serde_json::json;
use std::time::{Duration, Instant};

const COUNTING: &str = "cat('ran\\n', file = 'count.txt', append = TRUE)\nSys.sleep(2)\n";

/// Submits `op` to a service armed to abort: the call gets no answer and the service dies.
fn submit_into_crash(e: &mut Env, body: serde_json::Value) {
    let (status, v) = e.call("action.submit", body);
    assert_eq!(status, 0, "the service answered instead of crashing: {v}");
    let status = e.service.child.wait().unwrap();
    assert!(!status.success(), "{status:?}");
}

fn count(e: &Env) -> String {
    std::fs::read_to_string(e.dir.join("count.txt")).unwrap_or_default()
}

/// Polls `action.lookup` until `pred` holds for the record (or panics after `secs`).
fn until_record(
    e: &Env,
    op: &str,
    secs: u64,
    pred: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        let v = e.ok("action.lookup", json!({"operationId": op}));
        if pred(&v) {
            return v;
        }
        assert!(Instant::now() < deadline, "{op} never settled: {v}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_crash_after_sending_before_the_host_was_asked_leaves_it_not_sent_and_retry_runs_it_once() {
    // The first delivery goes through (its Host stays up); the second crashes before asking.
    let mut e = Env::runs(
        &[],
        &[("FAILPOINTS", "runs::before_delivery=1*off->return(abort)")],
    );
    let quick = e.script("quick.R", "cat('warm\\n')\n");
    e.ok(
        "action.submit",
        e.submit_body("warm-1", json!({"script": quick})),
    );
    assert_eq!(e.wait_end("warm-1", 30)["exit"]["exitCode"], 0);
    let script = e.script("count.R", COUNTING);
    let body = e.submit_body("crash-1", json!({"script": script}));
    submit_into_crash(&mut e, body.clone());
    e.restart(&[]);
    // Recovery asks the Host, which never had it: certainly not delivered, nothing ran.
    let r = until_record(&e, "crash-1", 20, |v| v["delivery"] != "uncertain");
    assert_eq!(r["delivery"], "not-sent", "{r}");
    assert_eq!(r["execution"], json!(null), "{r}");
    assert_eq!(count(&e), "");
    // The same intent answers its record; only the submitter's retry delivers it, once.
    assert_eq!(e.ok("action.submit", body.clone())["delivery"], "not-sent");
    e.ok("action.retry", json!({"operationId": "crash-1"}));
    assert_eq!(e.wait_end("crash-1", 30)["exit"]["exitCode"], 0);
    assert_eq!(e.ok("action.submit", body)["execution"], "exited");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&e), "ran\n");
}

#[test]
fn a_crash_after_the_host_took_the_run_before_its_reply_was_journaled_observes_it_once() {
    let mut e = Env::runs(
        &[],
        &[(
            "FAILPOINTS",
            "runs::after_delivery_before_journal=return(abort)",
        )],
    );
    let script = e.script("count.R", COUNTING);
    let body = e.submit_body("crash-2", json!({"script": script}));
    submit_into_crash(&mut e, body.clone());
    // Only `sending` is journaled; the Host has the run. Recovery looks it up (never re-sends)
    // and watches it to its end.
    e.restart(&[]);
    let done = until_record(&e, "crash-2", 30, |v| v["execution"] == "exited");
    assert_eq!(done["delivery"], "sent", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    assert_eq!(e.ok("action.submit", body)["execution"], "exited");
    e.ok("action.retry", json!({"operationId": "crash-2"}));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(count(&e), "ran\n");
}
