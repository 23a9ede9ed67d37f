//! Issue 6: buffer scripts, resource arguments, requirements before dispatch, artifact.check,
//! action.export (complete, partial, unsaved), run contexts, project.runs and Host shutdown.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod runs_env;
mod util;

use runs_env::{sha, start};
use serde_json::json;

/// Writes `a.csv` and `b.txt` and a completion declaration; echoes its first trailing argument's content.
fn producer() -> String {
    let a = "k,v\n1,2\n";
    let b = "hello\n";
    let completion = json!({"schemaVersion": 1, "complete": true, "artifacts": [
        {"path": "a.csv", "bytes": a.len(), "sha256": sha(a.as_bytes())},
        {"path": "b.txt", "bytes": b.len(), "sha256": sha(b.as_bytes())},
    ]});
    format!(
        "out <- commandArgs(TRUE)[1]\ndir.create(out)\ncat('k,v\\n1,2\\n', file = file.path(out, 'a.csv'))\ncat('hello\\n', file = file.path(out, 'b.txt'))\nwriteLines('{completion}', file.path(dirname(out), 'done.json'))\n"
    )
}

fn declared() -> serde_json::Value {
    json!([{"path": "a.csv", "kind": "table", "format": "csv"}, {"path": "b.txt", "kind": "file", "format": "txt"}])
}

#[test]
fn artifact_check_export_and_run_context() {
    let e = start(&[], &[]);
    let script = e.script("produce.R", &producer());
    e.ok(
        "action.submit",
        e.submit_body(
            "p-1",
            json!({"script": script, "artifacts": declared(), "completion": "done.json"}),
        ),
    );
    assert_eq!(e.wait_end("p-1", 60)["exit"]["exitCode"], 0);

    let c = e.ok("artifact.check", json!({"operationId": "p-1"}));
    assert_eq!(c["complete"], true, "{c}");
    assert_eq!(
        c["completion"],
        json!({"present": true, "valid": true, "complete": true})
    );
    assert!(c["files"]
        .as_array()
        .unwrap()
        .iter()
        .all(|f| f["matches"] == true));

    // A complete export.
    let x = e.ok(
        "action.export",
        json!({"operationId": "p-1", "exportId": "x-1"}),
    );
    assert_eq!(x["partial"], false, "{x}");
    let folder = e.dir.join("exports/p-1");
    assert_eq!(
        std::fs::read_to_string(folder.join("script/produce.R")).unwrap(),
        producer()
    );
    assert_eq!(
        std::fs::read_to_string(folder.join("outputs/b.txt")).unwrap(),
        "hello\n"
    );
    let prov: serde_json::Value =
        serde_json::from_slice(&std::fs::read(folder.join("provenance.json")).unwrap()).unwrap();
    assert_eq!(prov["scriptDigest"], script["digest"]);
    assert!(std::fs::read_to_string(folder.join("PROVENANCE.md"))
        .unwrap()
        .contains("p-1"));
    // The same exportId answers the original result; a different input under it conflicts.
    assert_eq!(
        e.ok(
            "action.export",
            json!({"operationId": "p-1", "exportId": "x-1"})
        ),
        x
    );
    let (status, _) = e.err(
        "action.export",
        json!({"operationId": "p-1", "exportId": "x-1", "folder": "elsewhere"}),
    );
    assert_eq!(status, 409);
    // Never into an existing folder.
    let (status, _) = e.err(
        "action.export",
        json!({"operationId": "p-1", "exportId": "x-2"}),
    );
    assert_eq!(status, 409);

    // Tampering is caught by artifact.check and makes an export partial.
    std::fs::write(e.dir.join("runs/p-1/artifacts/b.txt"), "tampered\n").unwrap();
    let c = e.ok("artifact.check", json!({"operationId": "p-1"}));
    assert_eq!(c["complete"], false);
    assert_eq!(c["partial"], true);
    let b = c["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["path"] == "b.txt")
        .unwrap()
        .clone();
    assert_eq!(b["matches"], false, "{c}");
    assert_eq!(b["actual"]["sha256"], sha(b"tampered\n"));
    let x = e.ok(
        "action.export",
        json!({"operationId": "p-1", "exportId": "x-3", "folder": "exports/p-1-again"}),
    );
    assert_eq!(x["partial"], true, "{x}");
    assert_eq!(x["leftOut"][0]["path"], "b.txt");
    assert!(!e.dir.join("exports/p-1-again/outputs/b.txt").exists());
    assert!(e.dir.join("exports/p-1-again/outputs/a.csv").exists());

    // A run context: state, exit, stderr tail, script and declared files.
    let failing = e.script("fail.R", "message(strrep('x', 9000))\nstop('last words')\n");
    e.ok(
        "action.submit",
        e.submit_body("f-1", json!({"script": failing})),
    );
    e.wait_end("f-1", 60);
    let ctx = e.ok(
        "context.create",
        json!({"changeId": "c-1", "run": {"operationId": "f-1"}}),
    );
    let run = &ctx["run"];
    assert_eq!(run["execution"], "exited", "{ctx}");
    assert_eq!(run["exit"]["exitCode"], 1);
    assert!(run["stderr"]["text"]
        .as_str()
        .unwrap()
        .contains("last words"));
    assert!(run["stderr"]["offset"].as_u64().unwrap() > 0);
    assert_eq!(run["stderr"]["text"].as_str().unwrap().len(), 8192);
    assert_eq!(run["script"]["path"], "fail.R");
    let (status, _) = e.err(
        "context.create",
        json!({"changeId": "c-2", "run": {"operationId": "nope"}}),
    );
    assert_eq!(status, 404);

    // observation.snapshot lists the runs under project.runs.
    let (status, snap) =
        e.s.call("observation.snapshot", json!({"projectId": e.project}));
    assert_eq!(status, 200);
    let runs = snap["value"]["project"]["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "{snap}");
}

#[test]
fn buffer_scripts_resource_args_and_requirements_before_dispatch() {
    let e = start(&[], &[]);
    std::fs::write(e.dir.join("buf.R"), "cat('saved\\n')\n").unwrap();
    let (status, d) = e.call("document.open", json!({"path": "buf.R"}));
    assert_eq!(status, 200, "{d}");
    let doc = d["value"]["id"].as_str().unwrap().to_string();
    let v = d["value"]["version"].as_u64().unwrap();
    let edited = e.ok(
        "document.edit",
        json!({"documentId": doc, "expectedVersion": v, "changeId": "e1",
            "edits": [{"start": 5, "end": 10, "text": "unsaved"}]}),
    );
    let version = edited["version"].as_u64().unwrap();
    // Resource arguments resolve to read-only frozen copies.
    std::fs::write(e.dir.join("input.txt"), "payload\n").unwrap();
    let res = e.ok(
        "resource.register",
        json!({"changeId": "r1", "path": "input.txt", "kind": "file", "format": "txt"}),
    );
    let rref = json!({"resource": {"id": res["id"], "version": res["version"]}});
    let code = "a <- commandArgs(TRUE)\ncat(readLines(a[2]), '\\n')\n";
    let script = e.script("read.R", code);
    let r = e.ok(
        "action.submit",
        e.submit_body("arg-1", json!({"script": script, "args": [rref]})),
    );
    let frozen = r["plan"]["arguments"][0]["path"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(frozen.starts_with(".rho/store/sha256/"), "{r}");
    e.wait_end("arg-1", 60);
    assert!(e.output("arg-1", "stdout").contains("payload"));
    // A stale version and a foreign id are refused.
    std::fs::write(e.dir.join("input.txt"), "changed\n").unwrap();
    e.ok(
        "resource.register",
        json!({"changeId": "r2", "path": "input.txt", "kind": "file", "format": "txt"}),
    );
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("arg-2", json!({"script": script, "args": [rref]})),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("stale")),
        "{err}"
    );
    let foreign = json!({"resource": {"id": uuid_like(), "version": 1}});
    let (status, _) = e.err(
        "action.submit",
        e.submit_body("arg-3", json!({"script": script, "args": [foreign]})),
    );
    assert_eq!(status, 404);

    // The buffer version's text runs, not the disk bytes.
    let r = e.ok(
        "action.submit",
        e.submit_body(
            "buf-1",
            json!({"script": {"kind": "buffer", "documentId": doc, "version": version}}),
        ),
    );
    assert_eq!(r["plan"]["script"]["kind"], "buffer");
    e.wait_end("buf-1", 60);
    assert!(
        e.output("buf-1", "stdout").contains("unsaved"),
        "{}",
        e.output("buf-1", "stdout")
    );
    // Exporting a run whose script has unsaved edits needs a decision.
    let (status, err) = e.err(
        "action.export",
        json!({"operationId": "buf-1", "exportId": "b1"}),
    );
    assert_eq!(status, 400, "{err}");
    let x = e.ok(
        "action.export",
        json!({"operationId": "buf-1", "exportId": "b2", "unsaved": "include"}),
    );
    assert_eq!(x["unsaved"], "script/buf.unsaved.R", "{x}");
    // A stale buffer version is refused.
    let (status, err) = e.err(
        "action.submit",
        e.submit_body(
            "buf-2",
            json!({"script": {"kind": "buffer", "documentId": doc, "version": version - 1}}),
        ),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (409, Some("stale")),
        "{err}"
    );

    // Requirements are checked before dispatch and never installed.
    let (status, err) = e.err(
        "action.submit",
        e.submit_body("req-1", json!({"script": script, "requirements": [{"package": "rhotiny.absent", "source": "cran"}]})),
    );
    assert_eq!(
        (status, err["code"].as_str()),
        (503, Some("unavailable")),
        "{err}"
    );
    assert_eq!(err["details"]["missing"], json!(["rhotiny.absent"]));
    assert!(!e.dir.join("runs/req-1").exists());
    // A digest that does not match the disk bytes is refused.
    let mut bad = script.clone();
    bad["digest"] = json!(sha(b"other"));
    let (status, _) = e.err(
        "action.submit",
        e.submit_body("dig-1", json!({"script": bad})),
    );
    assert_eq!(status, 409);
}

fn uuid_like() -> String {
    "0b7e4c1e-2f3a-4d5b-8c6d-7e8f9a0b1c2d".into()
}

fn sigterm(s: &mut util::Service) {
    let pid = s.child.id();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let status = s.child.wait().unwrap();
    assert!(status.success(), "{status}");
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
fn service_shutdown_stops_only_its_own_hosts() {
    let mut e = start(&[], &[]);
    let script = e.script("sleep.R", "Sys.sleep(60)\n");
    e.ok(
        "action.submit",
        e.submit_body("s-1", json!({"script": script})),
    );
    sigterm(&mut e.s);
    let logs = e.s.stderr_lines.lock().unwrap().join("\n");
    assert!(logs.contains("Core Host pid"), "{logs}");
    restart(&mut e);
    let v = e.ok("action.lookup", json!({"operationId": "s-1"}));
    assert_eq!(v["stop"]["requestedBy"], "shutdown", "{v}");
    assert_eq!(v["execution"], "exited", "{v}");

    // A Host this service did not start keeps running when it stops.
    e.ok(
        "action.submit",
        e.submit_body("s-2", json!({"script": script})),
    );
    e.s.child.kill().unwrap();
    e.s.child.wait().unwrap();
    restart(&mut e);
    sigterm(&mut e.s);
    restart(&mut e);
    let v = e.ok("action.observe", json!({"operationId": "s-2"}));
    assert_eq!(v["execution"], "running", "{v}");
    assert_eq!(v["stop"], serde_json::Value::Null);
    e.ok("action.cancel", json!({"operationId": "s-2"}));
    assert_eq!(e.wait_end("s-2", 20)["stop"]["state"], "stopped");
}
