//! Issue 6: managed r.execute runs with real R: outputs and completion, once per operationId, failures, cancel, limits, owner selection.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod runs_env;
mod util;

use runs_env::{sha, start};
use serde_json::json;
use std::time::{Duration, Instant};

const CSV: &str = "x,y\n1,2\n3,4\n";
/// A 1x1 PNG.
const PNG_HEX: &str = "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d49444154789c6360000002000001e221bc330000000049454e44ae426082";

fn png() -> Vec<u8> {
    (0..PNG_HEX.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&PNG_HEX[i..i + 2], 16).unwrap())
        .collect()
}

fn analysis() -> String {
    let png = png();
    let completion = json!({"schemaVersion": 1, "complete": true, "artifacts": [
        {"path": "table.csv", "bytes": CSV.len(), "sha256": sha(CSV.as_bytes())},
        {"path": "figure.png", "bytes": png.len(), "sha256": sha(&png)},
    ]});
    format!(
        r#"a <- commandArgs(trailingOnly = TRUE)
out <- a[1]
dir.create(out, recursive = TRUE)
cat("ran\n", file = "count.txt", append = TRUE)
cat("{csv}", file = file.path(out, "table.csv"))
h <- "{png}"
writeBin(as.raw(strtoi(substring(h, seq(1, nchar(h), 2), seq(2, nchar(h), 2)), 16L)), file.path(out, "figure.png"))
writeLines('{completion}', file.path(dirname(out), "completion.json"))
cat("args:", a[-1], "\n")
"#,
        csv = CSV.replace('\n', "\\n"),
        png = PNG_HEX,
        completion = completion,
    )
}

#[test]
fn a_script_writes_declared_outputs_once_per_operation_id() {
    let e = start(&[], &[]);
    let script = e.script("analysis.R", &analysis());
    let body = e.submit_body(
        "op-1",
        json!({"script": script, "args": ["alpha"],
            "artifacts": [{"path": "table.csv", "kind": "table", "format": "csv"},
                          {"path": "figure.png", "kind": "figure", "format": "png"}],
            "completion": "completion.json"}),
    );
    let accepted = e.ok("action.submit", body.clone());
    assert_eq!(accepted["delivery"], "sent", "{accepted}");
    let plan = &accepted["plan"];
    assert_eq!(plan["runDirectory"], "runs/op-1/");
    assert_eq!(plan["outputDirectory"], "runs/op-1/artifacts");
    assert_eq!(plan["completion"], "runs/op-1/completion.json");
    assert_eq!(plan["scriptDigest"], script["digest"]);
    assert_eq!(plan["arguments"], json!([{"literal": "alpha"}]));
    assert!(
        plan["core"]["path"].as_str().unwrap().ends_with("rho"),
        "{plan}"
    );
    assert_eq!(plan["core"]["sha256"].as_str().unwrap().len(), 64);

    let done = e.wait_end("op-1", 60);
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["exit"]["exitCode"], 0, "{done}");
    let inv = done["inventory"].as_array().unwrap();
    assert_eq!(inv.len(), 2, "{done}");
    assert_eq!(inv[0]["sha256"], sha(CSV.as_bytes()));
    assert_eq!(
        std::fs::read(e.dir.join("runs/op-1/artifacts/figure.png")).unwrap(),
        png()
    );
    assert!(e.output("op-1", "stdout").contains("args: alpha"));

    // The same identity returns the original record and runs nothing again.
    let again = e.ok("action.submit", body.clone());
    assert_eq!(again["operationId"], "op-1");
    assert_eq!(again["plan"], accepted["plan"]);
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(
        std::fs::read_to_string(e.dir.join("count.txt")).unwrap(),
        "ran\n"
    );

    // Changed input under the same id is a conflict, and nothing runs.
    let mut changed = body.clone();
    changed["input"]["args"] = json!(["beta"]);
    let (status, err) = e.err("action.submit", changed);
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("conflict")),
        "{err}"
    );

    // Declared outputs are resources with the run as provenance.
    let list = e.ok("resource.list", json!({}));
    let paths: Vec<&str> = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["path"].as_str().unwrap())
        .collect();
    assert!(paths.contains(&"runs/op-1/artifacts/table.csv"), "{list}");
    let table = list["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["path"] == "runs/op-1/artifacts/table.csv")
        .unwrap();
    assert_eq!(table["provenance"]["operationId"], "op-1", "{table}");
    assert_eq!(table["sha256"], sha(CSV.as_bytes()), "{table}");

    // Any read of an unknown or guessed id is one not_found.
    let (status, err) = e.err("action.lookup", json!({"operationId": "nope"}));
    assert_eq!((status, err["code"].as_str()), (404, Some("not_found")));
    let listed = e.ok("action.list", json!({}));
    assert_eq!(listed["runs"].as_array().unwrap().len(), 1);
}

#[test]
fn a_failing_script_keeps_its_exit_and_stderr() {
    let e = start(&[], &[]);
    let script = e.script("fail.R", "message('about to fail')\nstop('boom')\n");
    e.ok(
        "action.submit",
        e.submit_body("fail-1", json!({"script": script})),
    );
    let done = e.wait_end("fail-1", 60);
    assert_eq!(done["execution"], "exited");
    assert_eq!(done["exit"]["exitCode"], 1, "{done}");
    let err = e.output("fail-1", "stderr");
    assert!(err.contains("boom"), "{err}");
    let (status, _) = e.err(
        "action.output",
        json!({"operationId": "fail-1", "stream": "stderr", "maxBytes": 70000}),
    );
    assert_eq!(status, 429);
}

#[test]
fn cancel_stops_a_sleeping_run_and_a_third_concurrent_run_is_refused() {
    let e = start(&[], &[]);
    let script = e.script("sleep.R", "cat(Sys.getpid(), '\\n')\nSys.sleep(60)\n");
    let a = e.ok(
        "action.submit",
        e.submit_body("sleep-a", json!({"script": script})),
    );
    assert_eq!(a["execution"], "running", "{a}");
    e.ok(
        "action.submit",
        e.submit_body("sleep-b", json!({"script": script})),
    );
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("sleep-c", json!({"script": script})),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (429, Some("limit")),
        "{err}"
    );
    assert_eq!(err["details"]["limit"], "maxConcurrentActions");
    // The refused run left nothing behind.
    let (status, _) = e.err("action.lookup", json!({"operationId": "sleep-c"}));
    assert_eq!(status, 404);

    // Wait until R has printed its pid, then cancel.
    let deadline = Instant::now() + Duration::from_secs(20);
    let pid = loop {
        let out = e.output("sleep-a", "stdout");
        if let Ok(p) = out.trim().parse::<i32>() {
            break p;
        }
        assert!(Instant::now() < deadline, "R never started");
        std::thread::sleep(Duration::from_millis(50));
    };
    let started = Instant::now();
    let c = e.ok("action.cancel", json!({"operationId": "sleep-a"}));
    assert_eq!(c["stop"]["requestedBy"], "operator", "{c}");
    let done = e.wait_end("sleep-a", 20);
    assert!(
        started.elapsed() < Duration::from_millis(3000 + 2000),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(done["execution"], "exited", "{done}");
    assert_eq!(done["stop"]["state"], "stopped", "{done}");
    assert_eq!(done["stop"]["requestedBy"], "operator");
    // The process group is gone.
    assert!(!std::path::Path::new(&format!("/proc/{pid}")).exists());
    // A slot is free again.
    e.ok(
        "action.submit",
        e.submit_body("sleep-c", json!({"script": script})),
    );
    e.ok("action.cancel", json!({"operationId": "sleep-b"}));
    e.ok("action.cancel", json!({"operationId": "sleep-c"}));
    e.wait_end("sleep-b", 20);
    e.wait_end("sleep-c", 20);
}

#[test]
fn files_and_r_only_read_objects_but_managed_execution_is_unavailable() {
    let e = start(&["--plugins", "files,r"], &[]);
    let script = e.script("a.R", "1\n");
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("x", json!({"script": script})),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("unavailable")),
        "{err}"
    );
    assert!(err["details"]["missing"]
        .as_array()
        .unwrap()
        .contains(&json!("requirements")));
    assert!(!e.dir.join("runs").exists());
    let listed = e.ok("action.list", json!({}));
    assert_eq!(listed["runs"], json!([]));
}
