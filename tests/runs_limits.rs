//! Issue 6: limits on managed runs (maxOperations, r.maxScriptBytes), a run the Host could not
//! take (retained not-sent), and retry (submitter only, refused when the Core changed).

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod runs_env;
mod util;

use runs_env::start;
use serde_json::json;

#[test]
fn operations_and_script_size_are_bounded_and_refusals_name_the_key() {
    let limits = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(
        limits.path(),
        json!({"maxOperations": 2, "r": {"maxScriptBytes": 64}}).to_string(),
    )
    .unwrap();
    let e = start(&["--limits", limits.path().to_str().unwrap()], &[]);
    let script = e.script("one.R", "1\n");
    for op in ["o-1", "o-2"] {
        e.ok(
            "action.submit",
            e.submit_body(op, json!({"script": script})),
        );
        e.wait_end(op, 30);
    }
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("o-3", json!({"script": script})),
    );
    assert_eq!(status, 429, "{err}");
    assert_eq!(err["details"]["limit"], "maxOperations");
    // Old records are kept, never evicted.
    assert_eq!(
        e.ok("action.list", json!({}))["runs"]
            .as_array()
            .unwrap()
            .len(),
        2
    );

    let big = e.script("big.R", &format!("# {}\n1\n", "x".repeat(100)));
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("o-4", json!({"script": big})),
    );
    assert_eq!(status, 429, "{err}");
    assert_eq!(err["details"]["limit"], "r.maxScriptBytes");
}

#[test]
fn a_run_the_host_cannot_take_is_retained_not_sent_and_retried_only_by_its_submitter() {
    // A Core that exists but never serves a Host: delivery certainly fails.
    let fake = tempfile::tempdir().unwrap();
    let core = fake.path().join("fake-core");
    std::fs::write(
        &core,
        "#!/bin/sh\n[ \"$1\" = --version ] && echo 'fake-core 1' \nexit 0\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&core, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut e = start(&["--core", core.to_str().unwrap()], &[]);
    let script = e.script("a.R", "cat('ran\\n', file = 'count.txt', append = TRUE)\n");
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("n-1", json!({"script": script})),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("unavailable")),
        "{err}"
    );
    assert_eq!(err["details"]["delivery"], "not-sent");
    let r = e.ok("action.lookup", json!({"operationId": "n-1"}));
    assert_eq!(r["delivery"], "not-sent", "{r}");
    assert_eq!(r["plan"]["core"]["version"], "fake-core 1");

    // Only the submitter retries (the local browser is not the operator that submitted).
    let (status, v) = e.s.call_local(
        "action.retry",
        json!({"projectId": e.project, "operationId": "n-1"}),
    );
    assert_eq!(status, 403, "{v}");

    // With another Core selected, the retry is refused: the run keeps its recorded Core.
    e.s.child.kill().unwrap();
    e.s.child.wait().unwrap();
    let args = [
        "--root",
        e.root.path().to_str().unwrap(),
        "--state-dir",
        e.state.path().to_str().unwrap(),
    ];
    e.s = util::Service::spawn(&args, &[], e.root.path(), e.state.path());
    let (status, err) = e.err("action.retry", json!({"operationId": "n-1"}));
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("conflict")),
        "{err}"
    );
    assert!(!e.dir.join("count.txt").exists());
    // A new submission under the default Core runs.
    e.ok(
        "action.submit",
        e.submit_body("n-2", json!({"script": script})),
    );
    assert_eq!(e.wait_end("n-2", 30)["exit"]["exitCode"], 0);
}

#[test]
fn accepted_runs_stay_readable_and_their_identity_answers_after_owners_change() {
    let mut e = start(&[], &[]);
    let script = e.script("one.R", "cat('hi\\n')\n");
    let body = e.submit_body("keep-1", json!({"script": script}));
    e.ok("action.submit", body.clone());
    assert_eq!(e.wait_end("keep-1", 30)["exit"]["exitCode"], 0);
    e.s.child.kill().unwrap();
    e.s.child.wait().unwrap();
    let args = [
        "--root",
        e.root.path().to_str().unwrap(),
        "--state-dir",
        e.state.path().to_str().unwrap(),
        "--plugins",
        "files",
    ];
    e.s = util::Service::spawn(&args, &[], e.root.path(), e.state.path());
    // Reads and the original identity keep working; new work is unavailable, naming the owner.
    assert_eq!(
        e.ok("action.lookup", json!({"operationId": "keep-1"}))["exit"]["exitCode"],
        0
    );
    assert!(e.output("keep-1", "stdout").contains("hi"));
    assert_eq!(e.ok("action.submit", body)["operationId"], "keep-1");
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("keep-2", json!({"script": script})),
    );
    assert_eq!(status, 503, "{err}");
    assert!(err["details"]["missing"]
        .as_array()
        .unwrap()
        .contains(&json!("r")));
    let (status, _) = e.err("requirements.check", json!({"requirements": []}));
    assert_eq!(status, 503);
}
