//! Issue 16, the Console against the real `rho`: who may run, stop and read, the changeId
//! identity, the limits, stop with a command that ignores SIGTERM, the output cut, the order of
//! interleaved stdout/stderr, the folder a command runs in, `console.changed`, and the tail read
//! live with stable offsets.

use crate::support::{until, Env, Events};
use serde_json::json;
use std::time::Duration;

fn env(limits: Option<serde_json::Value>) -> Env {
    Env::start(&[], limits, "console")
}

#[test]
fn a_command_records_its_exit_output_and_who_ran_it() {
    let e = env(None);
    let r = e.console_run("c1", "echo hi; echo err >&2; exit 3");
    assert_eq!(r["by"], "local");
    assert_eq!(r["cwd"], "");
    assert!(r["pid"].as_i64().unwrap() > 0, "{r}");
    let done = e.console_wait(r["commandId"].as_str().unwrap(), &["exited"], 10);
    assert_eq!(done["exitCode"], 3, "{done}");
    assert_eq!(done["signal"], serde_json::Value::Null);
    assert_eq!(done["stdoutBytes"], 3);
    assert_eq!(done["stderrBytes"], 4);
    assert!(done["endedAt"].is_string() && done["startedAt"].is_string());
    let (out, err) = e.console_text(r["commandId"].as_str().unwrap());
    assert_eq!((out.as_str(), err.as_str()), ("hi\n", "err\n"));
}

#[test]
fn the_same_change_id_is_the_same_record_and_never_runs_twice() {
    let e = env(None);
    let a = e.console_run("once", "echo ran >> count.txt");
    let id = a["commandId"].as_str().unwrap().to_string();
    e.console_wait(&id, &["exited"], 10);
    let b = e.console_run("once", "echo ran >> count.txt");
    assert_eq!(b["commandId"], id.as_str());
    assert_eq!(b["state"], "exited");
    let (status, v) = e.local(
        "console.run",
        json!({"changeId": "once", "command": "echo other"}),
    );
    assert_eq!(status, 409, "{v}");
    assert_eq!(v["error"]["code"], "conflict");
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\n"
    );
    let (_, list) = e.local("console.list", json!({}));
    assert_eq!(list["value"]["commands"].as_array().unwrap().len(), 1);
}

#[test]
fn only_the_local_browser_runs_and_stops_while_an_agent_grant_reads_the_record() {
    let e = env(None);
    let r = e.console_run("c1", "echo visible");
    let id = r["commandId"].as_str().unwrap().to_string();
    e.console_wait(&id, &["exited"], 10);
    // The operator credential.
    let (status, v) = e.call("console.run", json!({"changeId": "op", "command": "true"}));
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (403, Some("forbidden")),
        "{v}"
    );
    let (status, _) = e.call("console.stop", json!({"commandId": id}));
    assert_eq!(status, 403);
    let (status, _) = e.call("console.list", json!({}));
    assert_eq!(status, 200);
    // An Agent grant: list and output are granted by default, run and stop cannot be.
    let g = e.grant("reader", None);
    let methods = g["methods"].to_string();
    assert!(
        methods.contains("console.list") && methods.contains("console.output"),
        "{g}"
    );
    assert!(
        !methods.contains("console.run") && !methods.contains("console.stop"),
        "{g}"
    );
    let token = e.token("reader");
    let (status, v) = e.agent_call(
        &token,
        "console.run",
        json!({"changeId": "a", "command": "true"}),
    );
    assert_eq!(status, 403, "{v}");
    let (status, _) = e.agent_call(&token, "console.stop", json!({"commandId": id}));
    assert_eq!(status, 403);
    let (status, v) = e.agent_call(&token, "console.list", json!({}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["commands"][0]["commandId"], id.as_str());
    let (status, v) = e.agent_call(&token, "console.output", json!({"commandId": id}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["chunks"][0]["stream"], "stdout");
    // Nothing ran for the refused callers.
    let (_, list) = e.local("console.list", json!({}));
    assert_eq!(list["value"]["commands"].as_array().unwrap().len(), 1);
}

#[test]
fn interleaved_stdout_and_stderr_keep_their_order() {
    let e = env(None);
    let r = e.console_run(
        "order",
        "for i in 1 2 3 4 5; do echo o$i; sleep 0.05; echo e$i >&2; sleep 0.05; done",
    );
    let id = r["commandId"].as_str().unwrap();
    e.console_wait(id, &["exited"], 10);
    let seen: Vec<String> = e
        .console_chunks(id, 64 * 1024)
        .into_iter()
        .map(|(s, b)| format!("{s}:{}", String::from_utf8_lossy(&b).trim_end()))
        .collect();
    let want: Vec<String> = (1..=5)
        .flat_map(|i| [format!("stdout:o{i}"), format!("stderr:e{i}")])
        .collect();
    assert_eq!(seen, want);
}

#[test]
fn output_keeps_the_head_and_the_tail_and_counts_the_bytes_between() {
    let e = env(Some(
        json!({"console": {"maxOutputBytes": 1000, "tailBytes": 100}}),
    ));
    let r = e.console_run("big", "head -c 5000 /dev/zero | tr '\\0' a; printf END");
    let id = r["commandId"].as_str().unwrap();
    let done = e.console_wait(id, &["exited"], 10);
    assert_eq!(done["stdoutBytes"], 5003);
    assert_eq!(done["omittedBytes"], 5003 - 1100);
    // Read in small pages: the cut appears once, between the head and the tail.
    let chunks = e.console_chunks(id, 300);
    let cut: Vec<usize> = (0..chunks.len())
        .filter(|i| chunks[*i].0 == "cut")
        .collect();
    assert_eq!(cut.len(), 1, "{chunks:?}");
    assert_eq!(chunks[cut[0]].1, b"3903");
    let head: Vec<u8> = chunks[..cut[0]].iter().flat_map(|c| c.1.clone()).collect();
    let tail: Vec<u8> = chunks[cut[0] + 1..]
        .iter()
        .flat_map(|c| c.1.clone())
        .collect();
    assert_eq!(head, vec![b'a'; 1000]);
    assert_eq!(tail.len(), 100);
    assert!(tail.ends_with(b"aaEND"));
    // A page larger than maxReadBytes is refused naming the key.
    let (status, v) = e.local(
        "console.output",
        json!({"commandId": id, "maxBytes": 64 * 1024 + 1}),
    );
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["details"]["limit"], "console.maxReadBytes");
}

#[test]
fn max_running_refuses_another_and_max_records_evicts_the_oldest_finished() {
    let e = env(Some(json!({"console": {"maxRunning": 1, "maxRecords": 2}})));
    let long = e.console_run("long", "sleep 30");
    let (status, v) = e.local(
        "console.run",
        json!({"changeId": "more", "command": "true"}),
    );
    assert_eq!(status, 429, "{v}");
    assert_eq!(v["error"]["details"]["limit"], "console.maxRunning");
    let long_id = long["commandId"].as_str().unwrap().to_string();
    e.local("console.stop", json!({"commandId": long_id}));
    e.console_wait(&long_id, &["exited"], 10);
    let folder = |id: &str| e.dir.join(".rho/plugins/console").join(id);
    assert!(folder(&long_id).is_dir());
    let a = e.console_run("a", "true");
    e.console_wait(a["commandId"].as_str().unwrap(), &["exited"], 10);
    // A third record: the oldest finished one ("long") and its files make room.
    let b = e.console_run("b", "true");
    e.console_wait(b["commandId"].as_str().unwrap(), &["exited"], 10);
    let (_, list) = e.local("console.list", json!({}));
    let ids: Vec<&str> = list["value"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["changeId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"]);
    assert!(!folder(&long_id).exists());
    // Its identity is not run again: it answers expired.
    let (status, v) = e.local(
        "console.run",
        json!({"changeId": "long", "command": "sleep 30"}),
    );
    assert_eq!(
        (status, v["error"]["code"].as_str()),
        (410, Some("expired")),
        "{v}"
    );
}

#[test]
fn stop_terms_the_group_and_kills_a_command_that_ignores_sigterm_after_the_grace() {
    let e = env(Some(json!({"console": {"stopGraceMs": 600}})));
    let plain = e.console_run("plain", "sleep 30");
    let id = plain["commandId"].as_str().unwrap().to_string();
    let (status, v) = e.local("console.stop", json!({"commandId": id}));
    assert_eq!(status, 200, "{v}");
    assert_eq!(v["value"]["stoppedBy"], "local");
    let done = e.console_wait(&id, &["exited"], 10);
    assert_eq!(done["signal"], 15, "{done}");

    let stubborn = e.console_run(
        "stubborn",
        "trap '' TERM; echo ready; sleep 30; echo survived",
    );
    let id = stubborn["commandId"].as_str().unwrap().to_string();
    until("the trap is set", Duration::from_secs(10), || {
        e.console_text(&id).0.contains("ready")
    });
    let asked = std::time::Instant::now();
    e.local("console.stop", json!({"commandId": id}));
    let done = e.console_wait(&id, &["exited"], 15);
    assert!(
        asked.elapsed() >= Duration::from_millis(600),
        "{:?}",
        asked.elapsed()
    );
    assert_eq!(done["signal"], 9, "{done}");
    assert_eq!(done["stoppedBy"], "local");
    assert!(!e.console_text(&id).0.contains("survived"));
}

#[test]
fn a_command_runs_in_a_folder_inside_the_project_and_escapes_are_invalid() {
    let e = env(None);
    std::fs::create_dir_all(e.dir.join("sub/deeper")).unwrap();
    std::os::unix::fs::symlink("/tmp", e.dir.join("out")).unwrap();
    let (status, v) = e.local(
        "console.run",
        json!({"changeId": "in", "command": "pwd", "cwd": "sub/deeper"}),
    );
    assert_eq!(status, 200, "{v}");
    let id = v["value"]["commandId"].as_str().unwrap();
    assert_eq!(v["value"]["cwd"], "sub/deeper");
    e.console_wait(id, &["exited"], 10);
    let (out, _) = e.console_text(id);
    assert!(out.trim_end().ends_with("sub/deeper"), "{out}");
    for (n, bad) in ["..", "sub/../..", "out", ".rho", "/tmp", "missing"]
        .iter()
        .enumerate()
    {
        let (status, v) = e.local(
            "console.run",
            json!({"changeId": format!("bad{n}"), "command": "pwd", "cwd": bad}),
        );
        assert_eq!(status, 400, "{bad}: {v}");
        assert_eq!(v["error"]["details"]["field"], "cwd", "{bad}: {v}");
    }
}

#[test]
fn console_changed_announces_the_start_output_progress_and_the_end() {
    let e = env(None);
    let events = Events::open(e.service.port(), &format!("?projectId={}", e.project), None);
    let r = e.console_run("ev", "echo a; sleep 0.6; echo b; sleep 0.6");
    let id = r["commandId"].as_str().unwrap().to_string();
    let mut events = events;
    let mut seen = Vec::new();
    while let Some((_, kind, data)) = events.next_frame() {
        if kind != "console.changed" || data["commandId"] != id.as_str() {
            continue;
        }
        let end = data["state"] == "exited";
        seen.push(data);
        if end {
            break;
        }
    }
    assert_eq!(
        seen.first().map(|d| d["state"].clone()),
        Some(json!("starting")),
        "{seen:?}"
    );
    assert!(seen.iter().any(|d| d["state"] == "running"), "{seen:?}");
    let progress: Vec<u64> = seen
        .iter()
        .filter_map(|d| d["outputBytes"].as_u64())
        .collect();
    assert!(
        progress.len() >= 2 && progress.windows(2).all(|w| w[0] < w[1]),
        "{seen:?}"
    );
    assert_eq!(seen.last().unwrap()["state"], "exited");
}

#[test]
fn the_tail_of_a_3_mb_command_is_read_while_it_runs_and_its_offsets_hold() {
    let e = env(None);
    let r = e.console_run(
        "live",
        "head -c 3000000 /dev/zero | tr '\\0' a; printf MARK1; sleep 2; printf MARK2; sleep 30",
    );
    let id = r["commandId"].as_str().unwrap().to_string();
    let mut read = (Vec::new(), 0);
    until("MARK1 is read", Duration::from_secs(15), || {
        read = e.console_read_on(&id, 0, 64 * 1024);
        read.0.last().is_some_and(|c| c.1.ends_with(b"MARK1"))
    });
    assert_eq!(e.console_record(&id)["state"], "running");
    let (chunks, at) = read;
    // Offsets count every byte written: the head, the bytes not kept, the kept tail.
    assert_eq!(at, 3_000_005);
    let cut: Vec<usize> = (0..chunks.len())
        .filter(|i| chunks[*i].0 == "cut")
        .collect();
    assert_eq!(cut.len(), 1, "one cut");
    let omitted = 3_000_005 - (1 << 20) - 64 * 1024;
    assert_eq!(chunks[cut[0]].1, omitted.to_string().into_bytes());
    let head: usize = chunks[..cut[0]].iter().map(|c| c.1.len()).sum();
    let tail: Vec<u8> = chunks[cut[0] + 1..]
        .iter()
        .flat_map(|c| c.1.clone())
        .collect();
    assert_eq!((head, tail.len()), (1 << 20, 64 * 1024));
    // Reading on from where it stopped brings exactly what came next, while it still runs.
    let mut more = (Vec::new(), at);
    until("MARK2 is read", Duration::from_secs(15), || {
        more = e.console_read_on(&id, at, 64 * 1024);
        !more.0.is_empty()
    });
    assert_eq!(more.0, vec![("stdout".to_string(), b"MARK2".to_vec())]);
    assert_eq!(more.1, at + 5);
    assert_eq!(e.console_record(&id)["state"], "running");
    e.local("console.stop", json!({"commandId": id}));
    e.console_wait(&id, &["exited"], 10);
}
