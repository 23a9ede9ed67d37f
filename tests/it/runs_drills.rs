//! Issue 6 drills: kill -9 the service during a running script (the run finishes under its Host
//! and is observed once), kill -9 the Host (the run reads unknown, never runs again, repairOf works).
//! Issue 13: two unknown runs hold both slots until an operator starts the Host and observation
//! settles them as lost with their Host.

use crate::support;
use crate::support::Env;
use serde_json::json;
use std::time::{Duration, Instant};

/// Pids of processes whose command line contains `needle`.
fn pids_with(needle: &str) -> Vec<i32> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmd = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmd = String::from_utf8_lossy(&cmd).replace('\0', " ");
        if cmd.contains(needle) {
            out.push(pid);
        }
    }
    out
}

fn restart(e: &mut support::Env) {
    let args = [
        "--root",
        e.root.path().to_str().unwrap(),
        "--state-dir",
        e.state.path().to_str().unwrap(),
    ];
    e.service = support::Service::spawn(&args, &[], e.root.path(), e.state.path());
}

#[test]
fn a_run_survives_kill_9_of_the_service_and_is_observed_once() {
    let mut e = Env::runs(&[], &[]);
    let script = e.script(
        "slow.R",
        "cat('ran\\n', file = 'count.txt', append = TRUE)\nSys.sleep(3)\ndir.create(commandArgs(TRUE)[1])\ncat('done', file = file.path(commandArgs(TRUE)[1], 'out.txt'))\n",
    );
    let body = e.submit_body(
        "slow-1",
        json!({"script": script, "artifacts": [{"path": "out.txt", "kind": "file", "format": "txt"}]}),
    );
    let a = e.ok("action.submit", body.clone());
    assert_eq!(a["execution"], "running");
    // kill -9 the service while R sleeps.
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    restart(&mut e);
    let done = e.wait_end("slow-1", 30);
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0);
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\n"
    );
    // Submitting the same intent again returns the record; nothing runs again.
    let again = e.ok("action.submit", body);
    assert_eq!(again["execution"], "exited");
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\n"
    );
    // Its end was journaled once: the output was registered once, as one version.
    let list = e.ok("resource.list", json!({}));
    let outs: Vec<_> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["path"] == "runs/slow-1/artifacts/out.txt")
        .collect();
    assert_eq!(outs.len(), 1, "{list}");
    assert_eq!(outs[0]["version"], 1, "{list}");
}

#[test]
fn killing_the_host_leaves_the_run_unknown_never_rerun_and_repairable() {
    let e = Env::runs(&[], &[]);
    let script = e.script(
        "long.R",
        "cat('ran\\n', file = 'count.txt', append = TRUE)\ncat(Sys.getpid(), '\\n')\nSys.sleep(60)\n",
    );
    e.ok(
        "action.submit",
        e.submit_body("long-1", json!({"script": script})),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    let r_pid = loop {
        if let Ok(p) = e.output("long-1", "stdout").trim().parse::<i32>() {
            break p;
        }
        assert!(Instant::now() < deadline, "R never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    let canonical = std::fs::canonicalize(&e.dir).unwrap();
    let hosts = pids_with(&format!("core host --project {}", canonical.display()));
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    nix_kill9(hosts[0]);
    // The run reads unknown; R's process group went with its Host.
    let deadline = Instant::now() + Duration::from_secs(20);
    let v = loop {
        let v = e.ok("action.observe", json!({"operationId": "long-1"}));
        if v["execution"] == "unknown" || Instant::now() > deadline {
            break v;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(v["execution"], "unknown", "{v}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while std::path::Path::new(&format!("/proc/{r_pid}")).exists() {
        assert!(Instant::now() < deadline, "R outlived its Host");
        std::thread::sleep(Duration::from_millis(50));
    }
    // Never re-run: retry returns the record; lookup keeps it unknown.
    let r = e.ok("action.retry", json!({"operationId": "long-1"}));
    assert_eq!(r["execution"], "unknown", "{r}");
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\n"
    );
    // A repair names it.
    let fix = e.script("fix.R", "cat('fixed\\n')\n");
    let mut body = e.submit_body("long-2", json!({"script": fix}));
    body["repairOf"] = json!("long-1");
    let repaired = e.ok("action.submit", body);
    assert_eq!(repaired["repairOf"], "long-1");
    assert_eq!(e.wait_end("long-2", 30)["exit"]["exitCode"], 0);
    // repairOf may not name a healthy or a missing run.
    let mut bad = e.submit_body("long-3", json!({"script": fix}));
    bad["repairOf"] = json!("long-2");
    assert_eq!(e.err("action.submit", bad.clone()).0, 400);
    bad["repairOf"] = json!("never-was");
    assert_eq!(e.err("action.submit", bad).0, 404);
}

/// Submits a script that records its pid and sleeps; waits until R runs it.
fn start_sleeper(e: &Env, op: &str) -> i32 {
    let script = e.script(
        &format!("{op}.R"),
        "cat('ran\\n', file = 'count.txt', append = TRUE)\ncat(Sys.getpid(), '\\n')\nSys.sleep(60)\n",
    );
    e.ok(
        "action.submit",
        e.submit_body(op, json!({"script": script})),
    );
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Ok(p) = e.output(op, "stdout").trim().parse::<i32>() {
            return p;
        }
        assert!(Instant::now() < deadline, "R never started {op}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn two_unknown_runs_hold_the_slots_until_the_operator_starts_the_host() {
    let e = Env::runs(&[], &[]);
    let pids = [start_sleeper(&e, "slot-1"), start_sleeper(&e, "slot-2")];
    let canonical = std::fs::canonicalize(&e.dir).unwrap();
    let hosts = pids_with(&format!("core host --project {}", canonical.display()));
    assert_eq!(hosts.len(), 1, "{hosts:?}");
    nix_kill9(hosts[0]);
    for pid in pids {
        let deadline = Instant::now() + Duration::from_secs(10);
        while std::path::Path::new(&format!("/proc/{pid}")).exists() {
            assert!(Instant::now() < deadline, "R outlived its Host");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    // With no Host answering, both read unknown and still hold both slots (seed: unknown
    // native work occupies a slot); nothing starts a Host by itself.
    let script = e.script("new.R", "cat('new\\n')\n");
    for op in ["slot-1", "slot-2"] {
        let v = e.ok("action.observe", json!({"operationId": op}));
        assert_eq!(
            (v["execution"].as_str(), v["lostWithHost"].as_bool()),
            (Some("unknown"), Some(false)),
            "{v}"
        );
    }
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("slot-3", json!({"script": script})),
    );
    assert_eq!(status, 429, "{err}");
    assert_eq!(err["details"]["limit"], "maxConcurrentActions", "{err}");
    assert!(pids_with(&format!("core host --project {}", canonical.display())).is_empty());
    // The documented way out: the operator starts the Host; it reports both runs lost.
    let out = support::rho()
        .args(["core", "start", "--project", canonical.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    for op in ["slot-1", "slot-2"] {
        let v = e.ok("action.observe", json!({"operationId": op}));
        assert_eq!(v["execution"], "unknown", "{v}");
        assert_eq!(v["lostWithHost"], true, "{v}");
        assert_eq!(v["exit"], json!(null), "nothing is known of its end: {v}");
        // Settled: a lookup reads the journaled fact.
        let l = e.ok("action.lookup", json!({"operationId": op}));
        assert_eq!(l["lostWithHost"], true, "{l}");
    }
    // Known not to run, they free their slots: new work is accepted and runs; nothing re-ran.
    e.ok(
        "action.submit",
        e.submit_body("slot-3", json!({"script": script})),
    );
    assert_eq!(e.wait_end("slot-3", 30)["exit"]["exitCode"], 0);
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\nran\n"
    );
    // A lost run is what repairOf may name.
    let mut body = e.submit_body("slot-4", json!({"script": script}));
    body["repairOf"] = json!("slot-1");
    assert_eq!(e.ok("action.submit", body)["repairOf"], "slot-1");
}

fn nix_kill9(pid: i32) {
    let out = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
}
