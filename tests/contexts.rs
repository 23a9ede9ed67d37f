//! Contexts over HTTP: exact buffer ranges frozen at a version, declared entities, identities, limits, restarts.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod util;

use serde_json::json;
use util::Service;

#[test]
fn contexts_freeze_exact_buffer_ranges_and_entities() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let limits = state.path().join("limits.json");
    std::fs::write(&limits, r#"{"maxContexts": 3, "maxContextBytes": 64}"#).unwrap();
    let sdir = state.path().join("s");
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        sdir.to_str().unwrap(),
        "--limits",
        limits.to_str().unwrap(),
    ];
    let s = Service::spawn(&args, &[], root.path(), &sdir);
    let (_, p) = s.call("project.create", json!({"name": "ctx"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    let dir = std::path::PathBuf::from(p["value"]["path"].as_str().unwrap());
    std::fs::write(dir.join("a.R"), "x <- '😀'\ny <- 2\n").unwrap();
    let (_, d) = s.call("document.open", json!({"projectId": pid, "path": "a.R"}));
    let doc = d["value"]["id"].as_str().unwrap().to_string();
    let create = |change: &str, body: serde_json::Value| {
        let mut b = body;
        b["projectId"] = json!(pid);
        b["changeId"] = json!(change);
        s.call("context.create", b)
    };
    let buffer = |v: u64, start: u64, end: u64| json!({"buffer": {"documentId": doc, "version": v, "range": {"start": start, "end": end}}});
    let (status, c) = create("c1", buffer(1, 6, 8));
    assert_eq!(status, 200, "{c}");
    assert_eq!(c["value"]["buffer"]["text"], "😀");
    assert_eq!(c["value"]["buffer"]["path"], "a.R");
    assert_eq!(c["value"]["createdBy"], "operator");
    let id = c["value"]["contextId"].as_str().unwrap().to_string();
    // The same identity and input: the same context; a changed input conflicts.
    assert_eq!(create("c1", buffer(1, 6, 8)).1["value"]["contextId"], id);
    assert_eq!(create("c1", buffer(1, 0, 1)).1["error"]["code"], "conflict");
    // The text is a copy: later edits do not change it.
    s.call("document.edit", json!({"projectId": pid, "documentId": doc, "expectedVersion": 1, "changeId": "e", "edits": [{"start": 0, "end": 1, "text": "z"}]}));
    let (_, r) = s.call("context.read", json!({"projectId": pid, "contextId": id}));
    assert_eq!(r["value"]["buffer"]["text"], "😀");
    assert_eq!(r["value"]["buffer"]["version"], 1);
    // A version that moved on is stale; a range splitting a pair is invalid.
    assert_eq!(create("c2", buffer(1, 0, 1)).1["error"]["code"], "stale");
    assert_eq!(create("c3", buffer(2, 6, 7)).1["error"]["code"], "invalid");
    // Exactly one kind.
    assert_eq!(create("c4", json!({})).1["error"]["code"], "invalid");
    let both = json!({"entities": {"namespace": "sample", "keys": ["s1"]}, "buffer": buffer(2, 0, 1)["buffer"]});
    assert_eq!(create("c5", both).1["error"]["code"], "invalid");
    // Media is checked against the media's facts (see the media test); a run context names a
    // retained run (tests/runs_outputs.rs), and an unknown one is not_found.
    let run = create("c6", json!({"run": {"operationId": "op1"}}));
    assert_eq!(
        (run.0, run.1["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    // Entities are frozen as declared; limits name their keys.
    let (status, e) = create(
        "c7",
        json!({"entities": {"namespace": "sample", "keys": ["s1", "s2"]}}),
    );
    assert_eq!(status, 200, "{e}");
    assert_eq!(e["value"]["entities"]["keys"], json!(["s1", "s2"]));
    let big = create(
        "c8",
        json!({"entities": {"namespace": "sample", "keys": ["x".repeat(100)]}}),
    );
    assert_eq!(big.1["error"]["details"]["limit"], "maxContextBytes");
    create("c9", json!({"entities": {"namespace": "n", "keys": ["k"]}}));
    let full = create(
        "c10",
        json!({"entities": {"namespace": "n", "keys": ["k2"]}}),
    );
    assert_eq!(full.1["error"]["details"]["limit"], "maxContexts");
    let (status, _) = s.call(
        "context.read",
        json!({"projectId": pid, "contextId": uuid::Uuid::new_v4().to_string()}),
    );
    assert_eq!(status, 404);
    // Contexts survive kill -9.
    s.kill9();
    let s = Service::spawn(&args, &[], root.path(), &sdir);
    let (_, r) = s.call("context.read", json!({"projectId": pid, "contextId": id}));
    assert_eq!(r["value"]["buffer"]["text"], "😀");
    assert_eq!(s.terminate(), Some(0));
}

/// A PNG header of `w` x `h` pixels (enough for the media facts).
fn png(w: u32, h: u32) -> Vec<u8> {
    let mut b = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13];
    b.extend_from_slice(b"IHDR");
    b.extend_from_slice(&w.to_be_bytes());
    b.extend_from_slice(&h.to_be_bytes());
    b.extend_from_slice(&[8, 2, 0, 0, 0, 0x12, 0x34, 0x56, 0x78]);
    b
}

#[test]
fn media_rectangles_are_checked_against_the_media_facts() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "m"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    let dir = std::path::PathBuf::from(p["value"]["path"].as_str().unwrap());
    std::fs::write(dir.join("fig.png"), png(40, 30)).unwrap();
    let (status, r) = s.call("resource.register", json!({"projectId": pid, "changeId": "r1", "path": "fig.png", "kind": "figure", "format": "png"}));
    assert_eq!(status, 200, "{r}");
    let res = json!({"id": r["value"]["id"], "version": r["value"]["version"]});
    let media = |change: &str, page: u64, units: &str, rect: serde_json::Value| {
        s.call("context.create", json!({"projectId": pid, "changeId": change, "media": {"resource": res, "page": page, "units": units, "rect": rect}}))
    };
    let (status, ok) = media(
        "m1",
        1,
        "px",
        json!({"x": 10, "y": 5.5, "width": 30, "height": 24.5}),
    );
    assert_eq!(status, 200, "{ok}");
    assert_eq!(ok["value"]["media"]["format"], "png");
    assert_eq!(
        ok["value"]["media"]["rect"],
        json!({"x": 10.0, "y": 5.5, "width": 30.0, "height": 24.5})
    );
    for (change, page, units, rect) in [
        (
            "m2",
            1,
            "px",
            json!({"x": 20, "y": 0, "width": 30, "height": 10}),
        ),
        (
            "m3",
            1,
            "pt",
            json!({"x": 0, "y": 0, "width": 1, "height": 1}),
        ),
        (
            "m4",
            2,
            "px",
            json!({"x": 0, "y": 0, "width": 1, "height": 1}),
        ),
        (
            "m5",
            1,
            "px",
            json!({"x": 0, "y": 0, "width": 0, "height": 1}),
        ),
    ] {
        let (status, e) = media(change, page, units, rect);
        assert_eq!(
            (status, e["error"]["code"].as_str()),
            (400, Some("invalid")),
            "{change}: {e}"
        );
    }
    let id = ok["value"]["contextId"].as_str().unwrap();
    let (_, read) = s.call("context.read", json!({"projectId": pid, "contextId": id}));
    assert_eq!(read["value"]["media"]["page"], 1);
    assert_eq!(s.terminate(), Some(0));
}
