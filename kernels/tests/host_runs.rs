//! Runs through a real Host with real R: artifacts and inventory, exactly once per
//! operationId, conflicts, failures, log caps, cancel (grace and escalation).

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use rho_kernels::host::paths;
use rho_kernels::host::proto::{HostErrorCode, HostReply, HostRequest, RunState, StopState};
use std::time::Duration;
use util::*;

const CSV_AND_PNG: &str = r#"
args <- commandArgs(trailingOnly = TRUE)
out <- args[1]
dir.create(out, recursive = TRUE)
write.csv(data.frame(x = 1:3, y = c(2.5, 3.5, 4.5)), file.path(out, "table.csv"), row.names = FALSE)
grDevices::png(file.path(out, "plot.png"), width = 200, height = 150, type = "cairo")
plot(1:10)
invisible(grDevices::dev.off())
cat("label:", args[2], "\n")
cat("wd:", getwd(), "\n")
cat("libs:", Sys.getenv("R_LIBS"), "\n")
"#;

#[test]
fn csv_and_png_run_exits_zero_with_a_correct_inventory() {
    let p = Project::new();
    let _host = HostProc::start_with_env(&p, 60_000, &[("R_LIBS", "/inherited/lib")]);
    let mut spec = p.spec("op-csv", CSV_AND_PNG);
    spec.args = vec!["first run".into()];
    spec.artifacts = vec!["table.csv".into(), "plot.png".into(), "never.txt".into()];
    let accepted = p.submit(&spec);
    assert_eq!(accepted.state, RunState::Running);
    assert!(accepted.pid.is_some());
    // Recorded before it ran: the frozen script is on disk.
    let frozen = paths::script_path(&p.path(), "op-csv", "analysis.R");
    assert_eq!(std::fs::read_to_string(frozen).unwrap(), CSV_AND_PNG);

    let done = p.wait("op-csv");
    assert_eq!(done.state, RunState::Exited, "{done:?}");
    assert_eq!((done.exit_code, done.signal), (Some(0), None));
    assert!(done.ended_at_ms >= done.started_at_ms);
    let inventory = done.inventory.clone().unwrap();
    let out = spec.output_directory.clone();
    for entry in &inventory[..2] {
        let bytes = std::fs::read(out.join(&entry.path)).unwrap();
        assert_eq!(entry.bytes, Some(bytes.len() as u64));
        assert_eq!(entry.sha256.as_deref(), Some(digest_bytes(&bytes).as_str()));
    }
    let png = std::fs::read(out.join("plot.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        std::fs::read_to_string(out.join("table.csv")).unwrap(),
        "\"x\",\"y\"\n1,2.5\n2,3.5\n3,4.5\n"
    );
    assert_eq!(
        (inventory[2].bytes, inventory[2].sha256.as_deref()),
        (None, None)
    );

    let stdout = std::fs::read_to_string(paths::stdout_path(&p.path(), "op-csv")).unwrap();
    assert!(stdout.contains("label: first run"), "{stdout}");
    assert!(
        stdout.contains(&format!("wd: {}", p.path().display())),
        "{stdout}"
    );
    let lib = p.path().join(".rho/library");
    let libs = format!("libs: {}:/inherited/lib", lib.display());
    assert!(stdout.contains(&libs), "{stdout}");
    assert_eq!(done.stdout.bytes, stdout.len() as u64);
    // The durable record says the same as the reply.
    let on_disk: rho_kernels::host::proto::HostRecord =
        serde_json::from_slice(&std::fs::read(paths::record_path(&p.path(), "op-csv")).unwrap())
            .unwrap();
    assert_eq!(on_disk, done);
}

fn digest_bytes(bytes: &[u8]) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

const COUNT_ONCE: &str = r#"
cat("ran\n", file = "count.txt", append = TRUE)
Sys.sleep(1)
"#;

#[test]
fn the_same_operation_id_runs_once_and_a_changed_digest_conflicts() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    let spec = p.spec("op-once", COUNT_ONCE);
    let first = p.submit(&spec);
    // Again while it runs, and again after it ended: the same record, no second run.
    let again = p.submit(&spec);
    assert_eq!(again.pid, first.pid);
    let done = p.wait("op-once");
    let after = p.submit(&spec);
    assert_eq!(after, done);
    assert_eq!(p.read("count.txt"), "ran\n");

    let mut changed = spec.clone();
    changed.request_digest = digest("something else");
    changed.script = "cat('other\\n', file = 'count.txt', append = TRUE)".into();
    match p.ask(&HostRequest::Submit(Box::new(changed))) {
        HostReply::Error { code, message } => {
            assert_eq!(code, HostErrorCode::Conflict);
            assert!(message.contains("op-once"), "{message}");
        }
        other => panic!("expected a conflict, got {other:?}"),
    }
    std::thread::sleep(Duration::from_millis(500));
    assert_eq!(p.read("count.txt"), "ran\n");
    assert_eq!(p.lookup("op-once"), done);
}

#[test]
fn a_failing_script_keeps_its_exit_code_and_stderr() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    p.submit(&p.spec("op-fail", "cat('before\\n'); stop('the boom we expect')"));
    let done = p.wait("op-fail");
    assert_eq!((done.exit_code, done.signal), (Some(1), None));
    let stderr = std::fs::read_to_string(paths::stderr_path(&p.path(), "op-fail")).unwrap();
    assert!(stderr.contains("the boom we expect"), "{stderr}");
    assert_eq!(done.stderr.bytes, stderr.len() as u64);
    assert!(!done.stderr.truncated);
}

#[test]
fn logs_keep_the_head_up_to_the_cap_and_flag_truncation() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    let mut spec = p.spec(
        "op-log",
        "for (i in 1:20000) cat(sprintf('line %05d\\n', i)); message('small'); cat('done', file = 'done.txt')",
    );
    spec.max_log_bytes = 1000;
    p.submit(&spec);
    let done = p.wait("op-log");
    assert_eq!(
        done.exit_code,
        Some(0),
        "the pipe kept draining past the cap"
    );
    assert_eq!(p.read("done.txt"), "done");
    let kept = std::fs::read(paths::stdout_path(&p.path(), "op-log")).unwrap();
    assert_eq!(kept.len(), 1000);
    assert!(kept.starts_with(b"line 00001\nline 00002\n"));
    assert_eq!((done.stdout.bytes, done.stdout.truncated), (1000, true));
    assert_eq!((done.stderr.bytes, done.stderr.truncated), (6, false));
}

#[test]
fn cancel_stops_a_sleeping_run_within_the_grace_and_its_group_is_gone() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    let running = p.submit(&p.spec("op-sleep", "Sys.sleep(60)"));
    let pgid = running.pid.unwrap();
    // Let R get going (a cancel before R runs is fine too, but this is the common case).
    std::thread::sleep(Duration::from_millis(700));
    let cancelled = match p.ask(&HostRequest::Cancel {
        operation_id: "op-sleep".into(),
        requested_by: "agent:s1".into(),
    }) {
        HostReply::Record { record } => record,
        other => panic!("{other:?}"),
    };
    let stop = cancelled.stop.clone().unwrap();
    assert_eq!(stop.state, StopState::Signalled);
    assert_eq!(stop.requested_by, "agent:s1");
    let done = p.wait("op-sleep");
    let stop = done.stop.clone().unwrap();
    assert_eq!(stop.state, StopState::Stopped);
    assert_eq!(done.signal, Some(libc_sigterm()));
    let took = done.ended_at_ms.unwrap() - stop.at_ms;
    assert!(took < 3000, "stopped {took} ms after the request");
    assert!(!group_alive(pgid), "process group {pgid} still has members");
    // A second cancel changes nothing; a cancel of a finished run is finished-first.
    let again = p.ask(&HostRequest::Cancel {
        operation_id: "op-sleep".into(),
        requested_by: "local".into(),
    });
    assert_eq!(record(again), done);
    p.submit(&p.spec("op-quick", "1"));
    p.wait("op-quick");
    let late = record(p.ask(&HostRequest::Cancel {
        operation_id: "op-quick".into(),
        requested_by: "local".into(),
    }));
    assert_eq!(late.stop.unwrap().state, StopState::FinishedFirst);
    assert_eq!(p.lookup("op-quick").stop.unwrap().requested_by, "local");
}

fn libc_sigterm() -> i32 {
    nix::sys::signal::Signal::SIGTERM as i32
}

#[test]
fn a_program_ignoring_sigterm_is_killed_after_the_grace() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    // R itself always dies on SIGTERM; a stand-in that ignores it exercises the escalation.
    let stubborn = shell_script(
        &p.path(),
        "stubborn.sh",
        "trap '' TERM\necho started\nsleep 60",
    );
    let mut spec = p.spec("op-stubborn", "unused");
    spec.rscript = stubborn;
    spec.stop_grace_ms = 500;
    let running = p.submit(&spec);
    until(T, || {
        p.read(".rho/host/op-stubborn/stdout.log")
            .contains("started")
    });
    let cancelled = record(p.ask(&HostRequest::Cancel {
        operation_id: "op-stubborn".into(),
        requested_by: "local".into(),
    }));
    assert_eq!(cancelled.state, RunState::Running);
    let done = p.wait("op-stubborn");
    assert_eq!(done.signal, Some(nix::sys::signal::Signal::SIGKILL as i32));
    assert_eq!(done.stop.as_ref().unwrap().state, StopState::Stopped);
    let took = done.ended_at_ms.unwrap() - done.stop.unwrap().at_ms;
    assert!(
        (400..5000).contains(&took),
        "killed {took} ms after the request"
    );
    assert!(!group_alive(running.pid.unwrap()));
}

#[test]
fn invalid_and_unknown_requests_are_refused_and_change_nothing() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    let mut bad = p.spec("op-bad", "1");
    bad.artifacts = vec!["../outside.csv".into()];
    match p.ask(&HostRequest::Submit(Box::new(bad))) {
        HostReply::Error { code, message } => {
            assert_eq!(code, HostErrorCode::Invalid);
            assert!(message.contains("artifacts[0]"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(!paths::record_dir(&p.path(), "op-bad").exists());
    match p.ask(&HostRequest::Lookup {
        operation_id: "op-bad".into(),
    }) {
        HostReply::Error { code, .. } => assert_eq!(code, HostErrorCode::NotFound),
        other => panic!("{other:?}"),
    }
    // An Rscript that is not there: recorded, then failedToStart with the reason; never retried.
    let mut missing = p.spec("op-norscript", "1");
    missing.rscript = "/nonexistent/Rscript".into();
    let r = p.submit(&missing);
    assert_eq!(r.state, RunState::FailedToStart);
    assert!(r.spawn_error.unwrap().contains("/nonexistent/Rscript"));
    match p.ask(&HostRequest::List) {
        HostReply::Records { records } => {
            assert_eq!(records.len(), 1);
            assert_eq!(records[0].operation_id, "op-norscript");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn wait_answers_a_running_record_when_its_timeout_passes() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    p.submit(&p.spec("op-slow", "Sys.sleep(60)"));
    let started = std::time::Instant::now();
    let waited = record(p.ask(&HostRequest::Wait {
        operation_id: "op-slow".into(),
        timeout_ms: 400,
    }));
    assert!(started.elapsed() >= Duration::from_millis(400));
    assert_eq!(waited.state, RunState::Running);
    assert_eq!(waited.stop, None);
}

#[test]
fn what_a_script_leaves_running_in_its_group_ends_with_the_run() {
    let p = Project::new();
    let _host = HostProc::start(&p, 60_000);
    // A background child that would outlive R (and hold its output pipes open).
    let running = p.submit(&p.spec(
        "op-bg",
        "system('sleep 300 & echo $! > bg.pid'); cat('R done\\n')",
    ));
    let done = p.wait("op-bg");
    assert_eq!(done.exit_code, Some(0));
    let bg: i32 = p.read("bg.pid").trim().parse().unwrap();
    assert!(bg > 0);
    until(T, || !group_alive(running.pid.unwrap()));
    let alive = std::fs::read_to_string(format!("/proc/{bg}/stat"))
        .map(|s| {
            !s.rsplit_once(')')
                .is_some_and(|(_, r)| r.trim_start().starts_with('Z'))
        })
        .unwrap_or(false);
    assert!(!alive, "the background sleep {bg} survived its run");
}
