//! `rho journal inspect` as an operator uses it: listing, JSON Lines, verify, stats, replay, exit codes.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use std::io::Write;
use util::{listing, make_project, run, segments, text, Service};

fn inspect(args: &[&str]) -> std::process::Output {
    let mut all = vec!["journal", "inspect"];
    all.extend_from_slice(args);
    run(&all)
}

#[test]
fn lists_every_record_as_json_lines_with_the_documented_fields() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (id, dir) = make_project(root.path(), state.path(), "listed", 5);
    let before = listing(root.path());
    let out = inspect(&[dir.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = lines.iter().map(|l| l["kind"].as_str().unwrap()).collect();
    assert!(kinds.contains(&"project.created"), "{kinds:?}");
    assert_eq!(
        kinds
            .iter()
            .filter(|k| **k == "project.setting-set")
            .count(),
        5
    );
    assert_eq!(kinds.last(), Some(&"journal.clean-shutdown"));
    for (i, l) in lines.iter().enumerate() {
        assert_eq!(l["seq"], i as u64 + 1, "seqs are contiguous from 1");
        for field in [
            "segment",
            "offset",
            "bytes",
            "epoch",
            "time",
            "entity",
            "entitySeq",
            "principal",
            "changeId",
            "codec",
            "summary",
        ] {
            assert!(l.get(field).is_some(), "missing {field} in {l}");
        }
    }
    let created = lines
        .iter()
        .find(|l| l["kind"] == "project.created")
        .unwrap();
    assert_eq!(created["entity"], format!("project:{id}"));
    assert_eq!(created["principal"], "local");
    let set = lines
        .iter()
        .find(|l| l["kind"] == "project.setting-set")
        .unwrap();
    assert_eq!(set["principal"], "agent:claude-code");
    assert_eq!(set["changeId"], "c0");
    assert!(set["time"].as_str().unwrap().ends_with('Z'));
    assert_eq!(
        listing(root.path()),
        before,
        "inspect changed nothing on disk"
    );

    // The journal folder works as PATH too, and --from/--to select a range.
    let jdir = dir.join(".rho/journal");
    let out = inspect(&[jdir.to_str().unwrap(), "--from", "2", "--to", "3"]);
    assert_eq!(out.status.code(), Some(0));
    let human = text(&out.stdout);
    assert_eq!(human.lines().count(), 2, "{human}");
    assert!(human.lines().next().unwrap().trim_start().starts_with("2 "));
}

#[test]
fn verify_stats_and_replay_as_of_a_seq() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (id, dir) = make_project(root.path(), state.path(), "replayed", 10);
    let d = dir.to_str().unwrap();
    let out = inspect(&[d, "--verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(text(&out.stdout).starts_with("ok:"));

    let out = inspect(&[d, "--stats", "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stats["segments"], 1);
    assert_eq!(stats["recordsPerEntityKind"]["project"], 11);
    assert!(stats["recordsPerSecond"].as_f64().unwrap() > 0.0);

    let full: serde_json::Value =
        serde_json::from_slice(&inspect(&[d, "--replay", "--json"]).stdout).unwrap();
    assert_eq!(
        full["state"]["project"]["settings"]
            .as_object()
            .unwrap()
            .len(),
        10
    );
    // The record with the fourth setting; replay as of the seq before it shows three.
    let lines = text(&inspect(&[d, "--json"]).stdout);
    let fourth = lines
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|l| l["changeId"] == "c3")
        .unwrap();
    let at = (fourth["seq"].as_u64().unwrap() - 1).to_string();
    let then: serde_json::Value =
        serde_json::from_slice(&inspect(&[d, "--replay", "--at", &at, "--json"]).stdout).unwrap();
    assert_eq!(
        then["state"]["project"]["settings"]
            .as_object()
            .unwrap()
            .len(),
        3
    );
    assert_ne!(then["stateHash"], full["stateHash"]);
    let entity: serde_json::Value = serde_json::from_slice(
        &inspect(&[d, "--replay", "--entity", &id.to_string(), "--json"]).stdout,
    )
    .unwrap();
    assert_eq!(entity["state"]["name"], "replayed");
}

#[test]
fn corruption_exits_1_and_names_where() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (_, dir) = make_project(root.path(), state.path(), "broken", 8);
    let lines = text(&inspect(&[dir.to_str().unwrap(), "--json"]).stdout);
    let third: serde_json::Value = serde_json::from_str(lines.lines().nth(2).unwrap()).unwrap();
    let seg = &segments(&dir)[0];
    let mut bytes = std::fs::read(seg).unwrap();
    let at = third["offset"].as_u64().unwrap() as usize + 40;
    bytes[at] ^= 0x01;
    std::fs::write(seg, bytes).unwrap();
    let out = inspect(&[dir.to_str().unwrap(), "--verify"]);
    assert_eq!(out.status.code(), Some(1));
    let said = text(&out.stdout);
    assert!(
        said.contains("corruption") && said.contains("segment 0"),
        "{said}"
    );
    assert!(said.contains(&format!("seq {}", third["seq"])), "{said}");
}

#[test]
fn a_torn_tail_after_a_crash_exits_3_and_a_live_writers_tail_is_in_flight() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let (_, dir) = make_project(root.path(), state.path(), "torn", 3);
    let service = Service::start(root.path(), state.path());
    // While the service holds the lease, an incomplete final frame is in flight, not damage.
    let seg = segments(&dir).pop().unwrap();
    let mut f = std::fs::OpenOptions::new().append(true).open(&seg).unwrap();
    f.write_all(&[0x40, 0, 0, 0, 1, 2, 3]).unwrap();
    drop(f);
    let out = inspect(&[dir.to_str().unwrap(), "--verify"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("in-flight"),
        "{}",
        text(&out.stdout)
    );
    service.kill9();
    // After the crash the same bytes are a torn tail.
    let out = inspect(&[dir.to_str().unwrap(), "--verify"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stdout));
    assert!(text(&out.stdout).contains("torn tail"));
}

#[test]
fn usage_errors_exit_2_and_a_missing_journal_exits_1_creating_nothing() {
    assert_eq!(run(&["journal", "inspect"]).status.code(), Some(2));
    assert_eq!(
        run(&["journal", "inspect", ".", "--bogus"]).status.code(),
        Some(2)
    );
    assert_eq!(
        run(&["journal", "inspect", ".", "--at", "3"]).status.code(),
        Some(2)
    );
    let empty = tempfile::tempdir().unwrap();
    let out = run(&["journal", "inspect", empty.path().to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("no journal"));
    assert!(listing(empty.path()).is_empty());
}
