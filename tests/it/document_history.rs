//! A buffer's changes carry their edits: `document.changed` (edit, undo's inverse, save), the
//! `document.changes` catch-up, `document.history` with authors and `document.revision` of a past version.

use crate::support::{Events, Service};
use serde_json::{json, Value};

fn call(s: &Service, op: &str, pid: &str, did: &str, mut body: Value) -> Value {
    body["projectId"] = json!(pid);
    body["documentId"] = json!(did);
    let (status, r) = s.call(op, body);
    assert_eq!(status, 200, "{op}: {r}");
    r["value"].clone()
}

/// Applies UTF-16 `edits` (ascending, base coordinates) to `text`, as the browser does.
fn apply(text: &str, edits: &Value) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (mut out, mut at) = (Vec::new(), 0usize);
    for e in edits.as_array().unwrap() {
        let (a, b) = (
            e["start"].as_u64().unwrap() as usize,
            e["end"].as_u64().unwrap() as usize,
        );
        out.extend_from_slice(&units[at..a]);
        out.extend(e["text"].as_str().unwrap().encode_utf16());
        at = b;
    }
    out.extend_from_slice(&units[at..]);
    String::from_utf16(&out).unwrap()
}

#[test]
fn changes_carry_their_edits_and_the_history_serves_past_versions() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "h"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    let dir = std::path::PathBuf::from(p["value"]["path"].as_str().unwrap());
    std::fs::write(dir.join("a.R"), "x😀y\r\nz").unwrap();
    let (_, o) = s.call("document.open", json!({"projectId": pid, "path": "a.R"}));
    let did = o["value"]["id"].as_str().unwrap().to_string();
    let events = Events::open(s.port(), "", None);
    let reader = std::thread::spawn(move || events.of_kind("document.changed", 3));

    // Two edits given out of order: the event lists them ascending, in base coordinates.
    let edits = json!([{"start": 6, "end": 7, "text": "Z"}, {"start": 1, "end": 3, "text": "é"}]);
    let body = json!({"expectedVersion": 1, "changeId": "e1", "edits": edits});
    assert_eq!(call(&s, "document.edit", &pid, &did, body)["version"], 2);
    let body = json!({"expectedVersion": 2, "changeId": "u1"});
    assert_eq!(call(&s, "document.undo", &pid, &did, body)["version"], 3);
    let body = json!({"expectedVersion": 3, "changeId": "s1"});
    call(&s, "document.save", &pid, &did, body);
    let seen = reader.join().unwrap();
    assert_eq!(seen.len(), 3, "{seen:?}");
    let (edit, undo, save) = (&seen[0], &seen[1], &seen[2]);
    assert_eq!(edit["kind"], "edit");
    assert_eq!(edit["changeId"], "e1");
    assert_eq!(
        (edit["baseVersion"].as_u64(), edit["version"].as_u64()),
        (Some(1), Some(2))
    );
    assert_eq!(
        edit["edits"],
        json!([{"start": 1, "end": 3, "text": "é"}, {"start": 6, "end": 7, "text": "Z"}])
    );
    let v2 = apply("x😀y\r\nz", &edit["edits"]);
    assert_eq!(v2, "xéy\r\nZ");
    // Undo's inverse, converted to UTF-16 of the version it reverts from.
    assert_eq!(
        (undo["kind"].as_str(), undo["baseVersion"].as_u64()),
        (Some("undo"), Some(2))
    );
    assert_eq!(apply(&v2, &undo["edits"]), "x😀y\r\nz");
    assert_eq!(
        (save["kind"].as_str(), save["edits"].clone()),
        (Some("save"), json!([]))
    );
    assert_eq!(save["dirty"], false);

    // Catch-up from version 1 replays the same edits from the journal.
    let caught = call(&s, "document.changes", &pid, &did, json!({"since": 1}));
    assert_eq!(caught["complete"], true);
    let kinds: Vec<&str> = caught["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["edit", "undo", "save"]);
    assert_eq!(caught["changes"][0]["edits"], edit["edits"]);
    assert_eq!(caught["changes"][1]["edits"], undo["edits"]);
    assert_eq!(caught["changes"][0]["changeId"], "e1");
    let none = call(&s, "document.changes", &pid, &did, json!({"since": 3}));
    // Nothing above 3: the save names version 3, which the caller has.
    assert_eq!(none["changes"], json!([]), "{none}");
    let (status, r) = s.call(
        "document.changes",
        json!({"projectId": pid, "documentId": did, "since": 99}),
    );
    assert_eq!(
        (status, r["error"]["code"].as_str()),
        (404, Some("not_found")),
        "{r}"
    );

    // History: newest first, with authors and kinds; paging back by `before`.
    let h = call(&s, "document.history", &pid, &did, json!({}));
    let listed: Vec<(u64, &str)> = h["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["version"].as_u64().unwrap(), v["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(listed, [(3, "save"), (3, "undo"), (2, "edit"), (1, "open")]);
    assert!(h["versions"]
        .as_array()
        .unwrap()
        .iter()
        .all(|v| !v["author"].as_str().unwrap().is_empty() && v["time"].as_str().is_some()));
    let page = call(
        &s,
        "document.history",
        &pid,
        &did,
        json!({"before": 3, "limit": 1}),
    );
    assert_eq!(
        (
            page["versions"][0]["version"].as_u64(),
            page["more"].as_bool()
        ),
        (Some(2), Some(true))
    );
    let (status, _) = s.call(
        "document.history",
        json!({"projectId": pid, "documentId": did, "limit": 0}),
    );
    assert_eq!(status, 400);

    // A past version's text, whole or a range; restoring it is an ordinary conditional edit.
    let old = call(&s, "document.revision", &pid, &did, json!({"version": 2}));
    assert_eq!(
        (old["text"].as_str(), old["length"].as_u64()),
        (Some("xéy\r\nZ"), Some(6))
    );
    let part = call(
        &s,
        "document.revision",
        &pid,
        &did,
        json!({"version": 2, "range": {"start": 1, "end": 2}}),
    );
    assert_eq!(part["text"], "é");
    let (status, r) = s.call(
        "document.revision",
        json!({"projectId": pid, "documentId": did, "version": 7}),
    );
    assert_eq!(
        (status, r["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let restore = json!({"expectedVersion": 3, "changeId": "r1", "edits": [{"start": 0, "end": 7, "text": old["text"]}]});
    assert_eq!(call(&s, "document.edit", &pid, &did, restore)["version"], 4);
    let now = call(&s, "document.read", &pid, &did, json!({}));
    assert_eq!(now["text"], "xéy\r\nZ");
    let (status, _) = s.call(
        "document.history",
        json!({"projectId": pid, "documentId": uuid::Uuid::new_v4().to_string()}),
    );
    assert_eq!(status, 404);
}

#[test]
fn an_edit_over_the_event_bound_is_announced_without_its_edits() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (_, p) = s.call("project.create", json!({"name": "big"}));
    let pid = p["value"]["id"].as_str().unwrap().to_string();
    let (_, o) = s.call(
        "document.open",
        json!({"projectId": pid, "path": "b.txt", "create": true}),
    );
    let did = o["value"]["id"].as_str().unwrap().to_string();
    let events = Events::open(s.port(), "", None);
    let reader = std::thread::spawn(move || events.of_kind("document.changed", 1));
    // Half of maxEventBytes (64 KiB) is the bound: 40 KB of text is over it.
    let big = "x".repeat(40_000);
    let body = json!({"expectedVersion": 1, "changeId": "b1", "edits": [{"start": 0, "end": 0, "text": big}]});
    call(&s, "document.edit", &pid, &did, body);
    let seen = reader.join().unwrap();
    assert_eq!(seen.len(), 1);
    assert_eq!(
        (seen[0]["kind"].as_str(), seen[0]["edits"].is_null()),
        (Some("edit"), true),
        "{}",
        seen[0]["kind"]
    );
    assert_eq!(seen[0]["version"], 2);
}
