//! Owner Files over HTTP: register, list, read, capture, stale bytes, limits, and kill -9 durability.

mod util;

use base64::Engine;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use util::Service;

/// A script standing in for Rscript that records every call; no data operation may start it.
pub fn rscript_spy(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let marker = dir.join("rscript-called");
    let script = dir.join("Rscript");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho \"$@\" >> {}\n", marker.display()),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, marker)
}

struct Env {
    _root: tempfile::TempDir,
    _state: tempfile::TempDir,
    spy: tempfile::TempDir,
    s: Service,
    project: String,
    dir: PathBuf,
}

fn start_with(limits: Option<Value>) -> Env {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let spy = tempfile::tempdir().unwrap();
    let (script, _) = rscript_spy(spy.path());
    let mut args = vec![
        "--root".to_string(),
        root.path().to_str().unwrap().to_string(),
        "--state-dir".to_string(),
        state.path().to_str().unwrap().to_string(),
        "--rscript".to_string(),
        script.to_str().unwrap().to_string(),
    ];
    if let Some(l) = limits {
        let f = spy.path().join("limits.json");
        std::fs::write(&f, l.to_string()).unwrap();
        args.push("--limits".into());
        args.push(f.to_str().unwrap().to_string());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let s = Service::spawn(&args, &[], root.path(), state.path());
    let (status, p) = s.call("project.create", json!({"name": "data"}));
    assert_eq!(status, 200, "{p}");
    let project = p["value"]["id"].as_str().unwrap().to_string();
    let dir = PathBuf::from(p["value"]["path"].as_str().unwrap());
    Env {
        _root: root,
        _state: state,
        spy,
        s,
        project,
        dir,
    }
}

impl Env {
    fn call(&self, op: &str, mut body: Value) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        self.s.call(op, body)
    }
    fn ok(&self, op: &str, body: Value) -> Value {
        let (status, v) = self.call(op, body);
        assert_eq!(status, 200, "{op}: {v}");
        v["value"].clone()
    }
    fn err(&self, op: &str, body: Value) -> (u16, Value) {
        let (status, v) = self.call(op, body);
        assert_ne!(status, 200, "{op}: {v}");
        (status, v["error"].clone())
    }
    fn rscript_was_called(&self) -> bool {
        self.spy.path().join("rscript-called").exists()
    }
}

fn b64(v: &Value) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(v["data"].as_str().unwrap())
        .unwrap()
}

#[test]
fn resources_are_registered_versioned_listed_and_read_exactly() {
    let e = start_with(None);
    std::fs::create_dir(e.dir.join("out")).unwrap();
    std::fs::write(e.dir.join("out/a.txt"), b"hello bytes").unwrap();
    let reg = |change: &str| json!({"changeId": change, "path": "out/a.txt", "kind": "file", "format": "text"});
    let r1 = e.ok("resource.register", reg("c1"));
    assert_eq!(r1["version"], 1);
    assert_eq!(r1["bytes"], 11);
    assert_eq!(r1["captured"], false);
    assert_eq!(r1["partial"], false);
    assert_eq!(r1["provenance"]["principal"], "operator");
    assert!(r1["provenance"]["time"].as_str().unwrap().ends_with('Z'));
    // Same identity, same input: the original reply. Same identity, other input: conflict.
    assert_eq!(e.ok("resource.register", reg("c1")), r1);
    let mut other = reg("c1");
    other["format"] = json!("csv");
    assert_eq!(e.err("resource.register", other).1["code"], "conflict");
    // Same bytes under a new identity: the same {id, version}.
    let again = e.ok("resource.register", reg("c2"));
    assert_eq!(
        (&again["id"], &again["version"]),
        (&r1["id"], &r1["version"])
    );
    // Changed bytes: the same id at version 2.
    std::fs::write(e.dir.join("out/a.txt"), b"hello again").unwrap();
    let r2 = e.ok("resource.register", reg("c3"));
    assert_eq!((&r2["id"], r2["version"].as_u64()), (&r1["id"], Some(2)));

    let list = e.ok("resource.list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 1);
    assert_eq!(list["resources"][0]["versions"], 2);
    assert_eq!(list["resources"][0]["path"], "out/a.txt");

    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 2}, "offset": 6, "length": 5}),
    );
    assert_eq!(b64(&read), b"again");
    assert_eq!(
        (
            read["offset"].as_u64(),
            read["length"].as_u64(),
            read["total"].as_u64()
        ),
        (Some(6), Some(5), Some(11))
    );
    // Version 1 was not captured and its file changed: stale with both digests.
    let (status, err) = e.err(
        "resource.read",
        json!({"resource": {"id": r1["id"], "version": 1}}),
    );
    assert_eq!((status, err["code"].as_str()), (409, Some("stale")));
    assert_eq!(err["details"]["sha256"], r1["sha256"]);
    assert_eq!(err["details"]["currentSha256"], r2["sha256"]);
    // Larger than maxReadBytes is refused, not clamped; guessed ids are not_found.
    let (status, err) = e.err(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 2}, "length": 65537}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("resources.maxReadBytes"))
    );
    for id in [uuid::Uuid::new_v4().to_string(), "nope".to_string()] {
        let (status, _) = e.err(
            "resource.read",
            json!({"resource": {"id": id, "version": 1}}),
        );
        assert_eq!(status, 404);
    }
    let (status, _) = e.err(
        "resource.read",
        json!({"resource": {"id": r2["id"], "version": 3}}),
    );
    assert_eq!(status, 404);
    for bad in ["../x", "/etc/passwd", ".rho/journal", ""] {
        let (status, err) = e.err(
            "resource.register",
            json!({"changeId": bad.to_string() + "x", "path": bad, "kind": "file", "format": "x"}),
        );
        assert_eq!(
            (status, err["code"].as_str()),
            (400, Some("invalid")),
            "{bad}"
        );
    }
    let (status, _) = e.err(
        "resource.register",
        json!({"changeId": "m", "path": "missing.txt", "kind": "file", "format": "x"}),
    );
    assert_eq!(status, 404);
    assert!(!e.rscript_was_called());
}

#[test]
fn a_captured_version_stays_readable_after_its_file_changes() {
    let e = start_with(None);
    std::fs::write(e.dir.join("fig.bin"), b"original").unwrap();
    let cap = e.ok(
        "resource.capture",
        json!({"changeId": "k1", "path": "fig.bin"}),
    );
    assert_eq!(
        (cap["version"].as_u64(), cap["captured"].as_bool()),
        (Some(1), Some(true))
    );
    std::fs::write(e.dir.join("fig.bin"), b"overwritten!").unwrap();
    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": cap["id"], "version": 1}}),
    );
    assert_eq!(b64(&read), b"original");
    std::fs::remove_file(e.dir.join("fig.bin")).unwrap();
    let read = e.ok(
        "resource.read",
        json!({"resource": {"id": cap["id"], "version": 1}}),
    );
    assert_eq!(b64(&read), b"original");
    assert!(e
        .dir
        .join(".rho/store/sha256")
        .join(cap["sha256"].as_str().unwrap())
        .exists());
    assert!(!e.rscript_was_called());
}

#[test]
fn resource_limits_refuse_naming_the_key_and_keep_earlier_data() {
    let e = start_with(Some(
        json!({"resources": {"maxResources": 2, "maxFileBytes": 16, "maxArtifactBytes": 20}}),
    ));
    for name in ["a", "b", "c"] {
        std::fs::write(e.dir.join(name), b"0123456789").unwrap();
    }
    std::fs::write(e.dir.join("big"), vec![b'x'; 17]).unwrap();
    e.ok("resource.capture", json!({"changeId": "1", "path": "a"}));
    let (status, err) = e.err(
        "resource.register",
        json!({"changeId": "2", "path": "big", "kind": "file", "format": "x"}),
    );
    assert_eq!(
        (status, err["details"]["limit"].as_str()),
        (429, Some("resources.maxFileBytes"))
    );
    std::fs::write(e.dir.join("b"), b"abcdefghijk").unwrap();
    let (_, err) = e.err("resource.capture", json!({"changeId": "3", "path": "b"}));
    assert_eq!(err["details"]["limit"], "resources.maxArtifactBytes");
    e.ok(
        "resource.register",
        json!({"changeId": "4", "path": "b", "kind": "file", "format": "x"}),
    );
    let (_, err) = e.err(
        "resource.register",
        json!({"changeId": "5", "path": "c", "kind": "file", "format": "x"}),
    );
    assert_eq!(err["details"]["limit"], "resources.maxResources");
    assert_eq!(
        e.ok("resource.list", json!({}))["resources"]
            .as_array()
            .unwrap()
            .len(),
        2
    );
}

#[test]
fn acknowledged_resources_survive_kill_9() {
    let e = start_with(None);
    let mut acked = Vec::new();
    for i in 0..20 {
        std::fs::write(e.dir.join(format!("f{i}.txt")), format!("bytes {i}")).unwrap();
        let body = json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt"), "kind": "file", "format": "text"});
        let rec = if i % 2 == 0 {
            e.ok("resource.register", body)
        } else {
            e.ok(
                "resource.capture",
                json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt")}),
            )
        };
        acked.push(rec);
    }
    let Env {
        _root,
        _state,
        spy,
        s,
        project,
        dir,
    } = e;
    let (root, state) = (s.root.clone(), s.state.clone());
    s.kill9();
    let (script, marker) = rscript_spy(spy.path());
    let args = [
        "--root",
        root.to_str().unwrap(),
        "--state-dir",
        state.to_str().unwrap(),
        "--rscript",
        script.to_str().unwrap(),
    ];
    let s = Service::spawn(&args, &[], &root, &state);
    let e = Env {
        _root,
        _state,
        spy,
        s,
        project,
        dir,
    };
    let list = e.ok("resource.list", json!({}));
    assert_eq!(list["resources"].as_array().unwrap().len(), 20);
    for rec in acked {
        let read = e.ok(
            "resource.read",
            json!({"resource": {"id": rec["id"], "version": rec["version"]}}),
        );
        assert_eq!(read["sha256"], rec["sha256"]);
        // A retry of the acknowledged identity answers the original record.
        let i: usize = rec["path"].as_str().unwrap()[1..]
            .trim_end_matches(".txt")
            .parse()
            .unwrap();
        if i % 2 == 1 {
            let again = e.ok(
                "resource.capture",
                json!({"changeId": format!("c{i}"), "path": format!("f{i}.txt")}),
            );
            assert_eq!(again, rec);
        }
    }
    assert!(!marker.exists());
}
