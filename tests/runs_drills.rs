//! Issue 6 drills: kill -9 the service during a running script (the run finishes under its Host
//! and is observed once), kill -9 the Host (the run reads unknown, never runs again, repairOf works).

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod runs_env;
mod util;

use runs_env::start;
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

fn restart(e: &mut runs_env::Env) {
    let args = [
        "--root",
        e.root.path().to_str().unwrap(),
        "--state-dir",
        e.state.path().to_str().unwrap(),
    ];
    e.s = util::Service::spawn(&args, &[], e.root.path(), e.state.path());
}

#[test]
fn a_run_survives_kill_9_of_the_service_and_is_observed_once() {
    let mut e = start(&[], &[]);
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
    e.s.child.kill().unwrap();
    e.s.child.wait().unwrap();
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
    let e = start(&[], &[]);
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

fn nix_kill9(pid: i32) {
    let out = std::process::Command::new("kill")
        .args(["-9", &pid.to_string()])
        .output()
        .unwrap();
    assert!(out.status.success());
}
