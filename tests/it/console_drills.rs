//! Issue 16 drills: a Console command outlives the service (kill -9 it, restart: `continuing`,
//! then `exited 0` with every line), and a command whose guard was killed reads `unknown`
//! after a restart; neither runs again. A stop whose SIGKILL was pending when the service died is
//! still carried out at its deadline.

use crate::support::Env;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn guard_pid(e: &Env, id: &str) -> i32 {
    let g = e
        .dir
        .join(".rho/plugins/console")
        .join(id)
        .join("guard.json");
    let v: Value = serde_json::from_slice(&std::fs::read(g).unwrap()).unwrap();
    v["guardPid"].as_i64().unwrap() as i32
}

fn kill(args: &[&str]) {
    let status = std::process::Command::new("kill")
        .args(args)
        .status()
        .unwrap();
    assert!(status.success(), "kill {args:?}");
}

#[test]
fn a_command_continues_through_kill_9_of_the_service_and_ends_with_all_its_output() {
    let mut e = Env::start(&[], None, "drill");
    let r = e.console_run(
        "count",
        "echo ran >> runs.txt; for i in $(seq 1 20); do echo $i; sleep 0.2; done",
    );
    let id = r["commandId"].as_str().unwrap().to_string();
    assert_eq!(r["state"], "running");
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    e.restart(&[]);
    let rec = e.console_record(&id);
    assert_eq!(rec["state"], "continuing", "{rec}");
    let done = e.console_wait(&id, &["exited"], 20);
    assert_eq!(done["exitCode"], 0, "{done}");
    let (out, _) = e.console_text(&id);
    let want: String = (1..=20).map(|i| format!("{i}\n")).collect();
    assert_eq!(out, want);
    assert_eq!(
        std::fs::read_to_string(e.dir.join("runs.txt")).unwrap(),
        "ran\n"
    );
}

#[test]
fn a_command_whose_guard_was_killed_reads_unknown_after_a_restart_and_never_runs_again() {
    let mut e = Env::start(&[], None, "drill");
    let r = e.console_run("lost", "echo ran >> runs.txt; sleep 30");
    let id = r["commandId"].as_str().unwrap().to_string();
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    let guard = guard_pid(&e, &id);
    kill(&["-9", &guard.to_string()]);
    crate::support::until(
        "the guard is gone",
        std::time::Duration::from_secs(5),
        || {
            !std::path::Path::new(&format!("/proc/{guard}")).exists()
                || std::fs::read_to_string(format!("/proc/{guard}/stat"))
                    .is_ok_and(|s| s.contains(") Z "))
        },
    );
    let pid = r["pid"].as_i64().unwrap() as i32;
    // The command itself, too (its output has no reader any more): only the record is tested.
    kill(&["-9", "--", &format!("-{pid}")]);
    e.restart(&[]);
    let rec = e.console_record(&id);
    assert_eq!(rec["state"], "unknown", "{rec}");
    assert!(rec["note"].as_str().unwrap().contains("guard"), "{rec}");
    // Asking again under the same changeId returns the record; nothing runs again.
    let again = e.console_run("lost", "echo ran >> runs.txt; sleep 30");
    assert_eq!(again["state"], "unknown");
    assert_eq!(
        std::fs::read_to_string(e.dir.join("runs.txt")).unwrap(),
        "ran\n"
    );
}

#[test]
fn a_sigkill_pending_its_grace_is_sent_after_a_restart_of_the_service() {
    let mut e = Env::start(&[], None, "drill");
    let r = e.console_run(
        "stubborn",
        "trap '' TERM; echo ready; sleep 60; echo survived",
    );
    let id = r["commandId"].as_str().unwrap().to_string();
    crate::support::until("the trap is set", Duration::from_secs(10), || {
        e.console_text(&id).0.contains("ready")
    });
    let asked = Instant::now();
    let (status, v) = e.local("console.stop", json!({"commandId": id}));
    assert_eq!(status, 200, "{v}");
    // The service dies within the 3000 ms grace, before its SIGKILL was due.
    e.service.child.kill().unwrap();
    e.service.child.wait().unwrap();
    assert!(asked.elapsed() < Duration::from_millis(3000));
    e.restart(&[]);
    let rec = e.console_record(&id);
    assert_eq!(rec["stoppedBy"], "local", "{rec}");
    let done = e.console_wait(&id, &["exited"], 20);
    assert_eq!(done["signal"], 9, "{done}");
    assert!(
        asked.elapsed() >= Duration::from_millis(3000),
        "{:?}",
        asked.elapsed()
    );
    assert!(!e.console_text(&id).0.contains("survived"));
}
