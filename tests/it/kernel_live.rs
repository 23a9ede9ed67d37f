//! Notebook cells in real R and Python through the real `rho` (issue 15): identity per caller,
//! output, variables, interrupt keeping values, the queue limit, reads while a cell runs, and the
//! kill -9 drill (no session process survives; the next start records what was cut short).

use crate::support::poll::until;
use crate::support::Env;
use serde_json::{json, Value};
use std::time::Duration;

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
        .unwrap()
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect()
}

/// Processes whose process group is `pgid` (the session's guard leads its group).
fn group_alive(pgid: u64) -> bool {
    std::fs::read_dir("/proc").unwrap().flatten().any(|p| {
        std::fs::read_to_string(p.path().join("stat"))
            .ok()
            .and_then(|s| {
                let rest = s.rsplit_once(')')?.1.to_string();
                rest.split_whitespace().nth(2)?.parse::<u64>().ok()
            })
            == Some(pgid)
    })
}

#[test]
fn r_and_python_cells_run_once_per_caller_identity_and_record_output_and_variables() {
    let e = Env::start(&[], None, "notebook");
    let a = run(&e, "r", "one", "x <- 1 + 1\nmessage('note')\nx", 60_000);
    assert_eq!(a["end"]["outcome"], "done", "{a}");
    assert!(text(&a).contains("[1] 2"), "{a}");
    assert_eq!(a["output"][0]["stream"], "message", "{a}");
    assert_eq!(a["by"], "operator");
    assert!(a["version"].as_str().unwrap().starts_with("R "), "{a}");
    assert_eq!(a["defined"], json!(["x"]));
    // The same identity is the same cell, not run again; a different body conflicts.
    let again = run(&e, "r", "one", "x <- 1 + 1\nmessage('note')\nx", 0);
    assert_eq!(again["cellId"], a["cellId"]);
    let (_, err) = e.err(
        "kernel.run",
        json!({"language": "r", "code": "2", "changeId": "one"}),
    );
    assert_eq!(err["code"], "conflict", "{err}");
    let read = e.ok("kernel.read", json!({}));
    assert_eq!(read["cells"].as_array().unwrap().len(), 1, "{read}");
    let session = &read["sessions"][0];
    assert_eq!(
        (session["language"].as_str(), session["state"].as_str()),
        (Some("r"), Some("live"))
    );
    assert_eq!(session["variables"][0]["name"], "x");
    assert_eq!(session["variables"][0]["cellId"], a["cellId"]);
    let p = run(&e, "python", "py", "y = 40 + 2\ny", 60_000);
    assert_eq!(p["end"]["outcome"], "done", "{p}");
    assert!(text(&p).contains("42"), "{p}");
    let value = e.ok("kernel.inspect", json!({"language": "r", "path": "x"}));
    assert_eq!(value["answer"], "value", "{value}");
    assert_eq!(value["afterCellId"], a["cellId"], "{value}");
}

#[test]
fn interrupt_stops_a_long_cell_keeping_values_reads_answer_meanwhile_and_the_queue_is_bounded() {
    let e = Env::start(&[], Some(json!({"kernel": {"maxQueued": 1}})), "notebook");
    run(&e, "r", "keep", "kept <- 7", 60_000);
    let long = run(&e, "r", "long", "Sys.sleep(30)", 0);
    until("the long cell runs", Duration::from_secs(20), || {
        cell(&e, &long["cellId"])["state"] == "running"
    });
    let waiting = run(&e, "r", "next", "kept + 1", 0);
    assert_eq!(waiting["state"], "waiting", "{waiting}");
    let (_, err) = e.err(
        "kernel.run",
        json!({"language": "r", "code": "3", "changeId": "full"}),
    );
    assert_eq!(
        (err["code"].as_str(), err["details"]["limit"].as_str()),
        (Some("limit"), Some("kernel.maxQueued")),
        "{err}"
    );
    // A read and an inspect answer at once while the cell runs (busy, never waiting for it).
    let busy = e.ok("kernel.inspect", json!({"language": "r", "path": "kept"}));
    assert_eq!(busy["answer"], "busy", "{busy}");
    e.ok("kernel.interrupt", json!({"cellId": long["cellId"]}));
    until(
        "the long cell is interrupted",
        Duration::from_secs(20),
        || cell(&e, &long["cellId"])["end"]["outcome"] == "interrupted",
    );
    assert_eq!(cell(&e, &long["cellId"])["end"]["by"], "operator");
    until("the waiting cell ran", Duration::from_secs(20), || {
        cell(&e, &waiting["cellId"])["end"]["outcome"] == "done"
    });
    assert!(text(&cell(&e, &waiting["cellId"])).contains("[1] 8"));
}

#[test]
fn after_kill_9_no_session_process_survives_and_the_next_start_records_what_was_cut_short() {
    let mut e = Env::start(&[], None, "notebook");
    let long = run(&e, "r", "long", "Sys.sleep(60)", 0);
    until("the long cell runs", Duration::from_secs(20), || {
        cell(&e, &long["cellId"])["state"] == "running"
    });
    let waiting = run(&e, "r", "after", "1", 0);
    let read = e.ok("kernel.read", json!({}));
    let pid = read["sessions"][0]["pid"].as_u64().unwrap();
    assert!(group_alive(pid));
    e.restart(&[]);
    until(
        "no session process survives",
        Duration::from_secs(10),
        || !group_alive(pid),
    );
    let read = e.ok("kernel.read", json!({}));
    assert_eq!(read["sessions"][0]["end"]["reason"], "rho-closed", "{read}");
    assert_eq!(cell(&e, &long["cellId"])["end"]["outcome"], "unknown");
    assert_eq!(cell(&e, &waiting["cellId"])["end"]["outcome"], "not-run");
    // Nothing runs again: the same identity answers its ended cell.
    let again = run(&e, "r", "after", "1", 0);
    assert_eq!(again["end"]["outcome"], "not-run");
}

#[test]
fn r_plots_are_kept_by_digest_a_later_cell_redraws_one_and_python_interrupt_keeps_values() {
    let e = Env::start(&[], None, "notebook");
    let two = run(&e, "r", "two", "plot(1:10)\nplot(3:1)", 60_000);
    assert_eq!(two["end"]["outcome"], "done", "{two}");
    let plots = two["plots"].as_array().unwrap();
    assert_eq!(plots.len(), 2, "{two}");
    let png = e.ok("kernel.plot", json!({"cellId": two["cellId"], "index": 1}));
    assert!(png["png"].as_str().unwrap().starts_with("iVBOR"), "a PNG");
    assert_eq!(png["digest"], plots[1]["digest"]);
    let over = run(&e, "r", "over", "abline(h = 2)", 60_000);
    // It redrew the second kept plot of `two`: `<cellId>#<index>`, the index kernel.plot takes.
    let replaces = over["plots"][0]["replaces"].as_str().unwrap_or_default();
    assert_eq!(
        replaces,
        format!("{}#1", two["cellId"].as_str().unwrap()),
        "{over}"
    );
    run(&e, "python", "keep", "kept = 5", 60_000);
    let long = run(&e, "python", "long", "import time\ntime.sleep(30)", 0);
    until("the long cell runs", Duration::from_secs(20), || {
        cell(&e, &long["cellId"])["state"] == "running"
    });
    e.ok("kernel.interrupt", json!({"cellId": long["cellId"]}));
    until(
        "the long cell is interrupted",
        Duration::from_secs(20),
        || cell(&e, &long["cellId"])["end"]["outcome"] == "interrupted",
    );
    let after = run(&e, "python", "after", "kept + 1", 60_000);
    assert!(text(&after).contains('6'), "{after}");
}

#[test]
fn an_interpreter_in_the_project_is_kept_and_a_session_others_used_is_not_restarted() {
    let e = Env::start(&[], None, "notebook");
    let python = which("python3");
    std::fs::create_dir_all(e.dir.join(".venv/bin")).unwrap();
    std::os::unix::fs::symlink(&python, e.dir.join(".venv/bin/python")).unwrap();
    let body = |change: &str, interpreter: Option<&str>| {
        let mut b =
            json!({"language": "python", "code": "1", "changeId": change, "waitMs": 60_000});
        if let Some(i) = interpreter {
            b["interpreter"] = json!(i);
        }
        b
    };
    let first = e.ok("kernel.run", body("a", Some(".venv/bin/python")));
    assert_eq!(first["end"]["outcome"], "done", "{first}");
    assert_eq!(first["program"], ".venv/bin/python", "{first}");
    let read = e.ok("kernel.read", json!({}));
    assert_eq!(
        read["interpreters"][0]["program"], ".venv/bin/python",
        "{read}"
    );
    // Only this caller ran cells: another interpreter restarts the session with it.
    std::os::unix::fs::symlink(&python, e.dir.join(".venv/bin/python3")).unwrap();
    let second = e.ok("kernel.run", body("b", Some(".venv/bin/python3")));
    assert_eq!(second["program"], ".venv/bin/python3", "{second}");
    assert_ne!(second["sessionId"], first["sessionId"]);
    // An Agent runs a cell in it; then the operator's other interpreter is refused.
    e.grant("claude-code", None);
    let token = e.token("claude-code");
    let (status, r) = e.agent_call(&token, "kernel.run", body("c", None));
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["value"]["by"], "agent:claude-code");
    let (_, err) = e.err("kernel.run", body("d", Some(".venv/bin/python")));
    assert_eq!(err["code"], "conflict", "{err}");
}

fn which(program: &str) -> std::path::PathBuf {
    let out = std::process::Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .unwrap();
    let path = String::from_utf8(out.stdout).unwrap().trim().to_string();
    std::fs::canonicalize(path).unwrap()
}
