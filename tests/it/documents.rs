//! Shared document buffers over HTTP: conditional edits, identities, Unicode, undo, saves and conflicts, limits, kill -9.

use crate::support;
use crate::support::{until, Service};
use serde_json::{json, Value};
use std::time::Duration;

struct Doc<'a> {
    s: &'a Service,
    project: String,
    id: String,
}

impl Doc<'_> {
    fn call(&self, op: &str, mut body: Value) -> (u16, Value) {
        body["projectId"] = json!(self.project);
        body["documentId"] = json!(self.id);
        self.s.call(op, body)
    }

    fn edit(&self, v: u64, change: &str, edits: Value) -> (u16, Value) {
        self.call(
            "document.edit",
            json!({"expectedVersion": v, "changeId": change, "edits": edits}),
        )
    }

    fn text(&self) -> (u64, String) {
        let (_, r) = self.call("document.read", json!({}));
        (
            r["value"]["version"].as_u64().unwrap(),
            r["value"]["text"].as_str().unwrap().to_string(),
        )
    }
}

fn setup(s: &Service, files: &[(&str, &[u8])]) -> (String, std::path::PathBuf) {
    let (_, p) = s.call("project.create", json!({"name": "docs"}));
    let id = p["value"]["id"].as_str().unwrap().to_string();
    let dir = std::path::PathBuf::from(p["value"]["path"].as_str().unwrap());
    for (name, bytes) in files {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    (id, dir)
}

fn open<'a>(s: &'a Service, project: &str, path: &str) -> (Doc<'a>, Value) {
    let (status, r) = s.call("document.open", json!({"projectId": project, "path": path}));
    assert_eq!(status, 200, "{r}");
    (
        Doc {
            s,
            project: project.to_string(),
            id: r["value"]["id"].as_str().unwrap().to_string(),
        },
        r["value"].clone(),
    )
}

fn code(r: &(u16, Value)) -> &str {
    r.1["error"]["code"].as_str().unwrap_or("ok")
}

#[test]
fn conditional_edits_identities_unicode_and_undo() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (pid, _) = setup(&s, &[("a.txt", "\u{feff}a😀b\r\nç".as_bytes())]);
    let (doc, opened) = open(&s, &pid, "a.txt");
    assert_eq!(opened["version"], 1);
    assert_eq!(opened["length"], 8, "UTF-16 units, BOM kept, CRLF kept");
    let (again, _) = open(&s, &pid, "a.txt");
    assert_eq!(again.id, doc.id, "one logical buffer per file");

    // Offsets refer to the expectedVersion text; two edits in one transaction.
    let r = doc.edit(
        1,
        "c1",
        json!([{"start": 1, "end": 2, "text": "A"}, {"start": 4, "end": 4, "text": "é"}]),
    );
    assert_eq!(r.1["value"], json!({"version": 2, "length": 9}));
    assert_eq!(doc.text(), (2, "\u{feff}A😀éb\r\nç".to_string()));
    // Same identity, same input: the original reply, nothing journaled again.
    let again = doc.edit(
        1,
        "c1",
        json!([{"start": 1, "end": 2, "text": "A"}, {"start": 4, "end": 4, "text": "é"}]),
    );
    assert_eq!(again.1["value"], json!({"version": 2, "length": 9}));
    assert_eq!(doc.text().0, 2);
    // Same identity, different input: conflict (identity before version).
    assert_eq!(
        code(&doc.edit(2, "c1", json!([{"start": 0, "end": 0, "text": "x"}]))),
        "conflict"
    );
    // A stale version names the current one.
    let stale = doc.edit(1, "c2", json!([{"start": 0, "end": 0, "text": "x"}]));
    assert_eq!(
        (
            stale.0,
            stale.1["error"]["details"]["currentVersion"].as_u64()
        ),
        (409, Some(2))
    );
    // Inside a surrogate pair, out of range, overlapping: invalid with the index; nothing applies.
    let split = doc.edit(
        2,
        "c3",
        json!([{"start": 0, "end": 0, "text": "ok"}, {"start": 3, "end": 3, "text": "x"}]),
    );
    assert_eq!(
        (code(&split), split.1["error"]["details"]["index"].as_u64()),
        ("invalid", Some(1))
    );
    assert_eq!(
        code(&doc.edit(2, "c4", json!([{"start": 0, "end": 99, "text": ""}]))),
        "invalid"
    );
    assert_eq!(
        code(&doc.edit(
            2,
            "c5",
            json!([{"start": 0, "end": 3, "text": ""}, {"start": 2, "end": 5, "text": ""}])
        )),
        "invalid"
    );
    assert_eq!(doc.text().0, 2, "refused transactions change nothing");
    // A lone surrogate escape makes the body invalid as a whole.
    let raw = format!(
        r#"{{"projectId":"{}","documentId":"{}","expectedVersion":2,"changeId":"c6","edits":[{{"start":0,"end":0,"text":"\ud800"}}]}}"#,
        pid, doc.id
    );
    let (status, body) = support::http(
        s.port(),
        "POST",
        "/api/v2/document.edit",
        Some(&s.token()),
        &[],
        &raw,
    );
    assert_eq!(
        (status, body["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
    // Undo reverts the newest transaction of any author, as a new version; nothing left is invalid.
    let (_, local) = s.call_local("document.edit", json!({"projectId": pid, "documentId": doc.id, "expectedVersion": 2, "changeId": "l1", "edits": [{"start": 9, "end": 9, "text": "!"}]}));
    assert_eq!(local["value"]["version"], 3);
    let u = doc.call(
        "document.undo",
        json!({"expectedVersion": 3, "changeId": "u1"}),
    );
    assert_eq!(u.1["value"]["version"], 4);
    assert_eq!(doc.text().1, "\u{feff}A😀éb\r\nç");
    let u = doc.call(
        "document.undo",
        json!({"expectedVersion": 4, "changeId": "u2"}),
    );
    assert_eq!(u.1["value"]["version"], 5);
    assert_eq!(doc.text().1, "\u{feff}a😀b\r\nç");
    assert_eq!(
        code(&doc.call(
            "document.undo",
            json!({"expectedVersion": 5, "changeId": "u3"})
        )),
        "invalid"
    );
    // Authors: who made each version.
    let (_, r) = doc.call("document.read", json!({}));
    let principals: Vec<&str> = r["value"]["authors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["principal"].as_str().unwrap())
        .collect();
    assert_eq!(
        principals,
        ["operator", "operator", "local", "operator", "operator"]
    );
    // Ranges in UTF-16, never splitting a pair; a pinned version that moved on is stale.
    let (_, r) = doc.call("document.read", json!({"range": {"start": 2, "end": 4}}));
    assert_eq!(r["value"]["text"], "😀");
    assert_eq!(
        code(&doc.call("document.read", json!({"range": {"start": 2, "end": 3}}))),
        "invalid"
    );
    assert_eq!(
        code(&doc.call("document.read", json!({"version": 1}))),
        "stale"
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn saves_check_the_disk_and_close_needs_a_clean_buffer() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (pid, dir) = setup(&s, &[("r.R", b"x <- 1\n")]);
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(dir.join("r.R"), std::fs::Permissions::from_mode(0o640)).unwrap();
    let (doc, _) = open(&s, &pid, "r.R");
    doc.edit(1, "e1", json!([{"start": 6, "end": 6, "text": "0"}]));
    // Close refuses a dirty buffer.
    assert_eq!(
        code(&doc.call("document.close", json!({"changeId": "k0"}))),
        "conflict"
    );
    // Changed outside Rho: save is a conflict with both digests, and nothing is written.
    std::fs::write(dir.join("r.R"), b"y <- 2\n").unwrap();
    let c = doc.call(
        "document.save",
        json!({"expectedVersion": 2, "changeId": "s1"}),
    );
    assert_eq!(code(&c), "conflict", "{}", c.1);
    assert_eq!(std::fs::read(dir.join("r.R")).unwrap(), b"y <- 2\n");
    // The refusal names both digests: the buffer's base and the disk's now.
    let disk = support::sha256_hex(b"y <- 2\n");
    assert_eq!(
        c.1["error"]["details"],
        json!({"baseDigest": support::sha256_hex(b"x <- 1\n"), "diskDigest": disk}),
        "{}",
        c.1
    );
    // A deliberate overwrite names the current disk digest.
    let ok = doc.call(
        "document.save",
        json!({"expectedVersion": 2, "changeId": "s2", "baseDigest": disk}),
    );
    assert_eq!(ok.0, 200, "{}", ok.1);
    assert_eq!(std::fs::read(dir.join("r.R")).unwrap(), b"x <- 10\n");
    assert_eq!(
        std::fs::metadata(dir.join("r.R"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o640,
        "mode kept"
    );
    assert_eq!(
        ok.1["value"]["diskDigest"],
        support::sha256_hex(b"x <- 10\n")
    );
    // The retried save returns its original reply.
    let again = doc.call(
        "document.save",
        json!({"expectedVersion": 2, "changeId": "s2", "baseDigest": disk}),
    );
    assert_eq!(again.1, ok.1);
    // Closing drops undo; a later open continues the version numbers.
    assert_eq!(doc.call("document.close", json!({"changeId": "k1"})).0, 200);
    let (reopened, v) = open(&s, &pid, "r.R");
    assert_eq!(reopened.id, doc.id);
    assert!(v["version"].as_u64().unwrap() > 2);
    assert_eq!(
        code(&reopened.call(
            "document.undo",
            json!({"expectedVersion": v["version"], "changeId": "u"})
        )),
        "invalid"
    );
    // create: true opens an empty buffer; the first save creates the file, unless someone did first.
    let (_, n) = s.call(
        "document.open",
        json!({"projectId": pid, "path": "new/notes.md"}),
    );
    assert_eq!(n["error"]["code"], "not_found");
    std::fs::create_dir(dir.join("new")).unwrap();
    let (_, n) = s.call(
        "document.open",
        json!({"projectId": pid, "path": "new/notes.md", "create": true}),
    );
    let fresh = Doc {
        s: &s,
        project: pid.clone(),
        id: n["value"]["id"].as_str().unwrap().to_string(),
    };
    assert!(n["value"]["diskDigest"].is_null());
    fresh.edit(
        1,
        "n1",
        json!([{"start": 0, "end": 0, "text": "# notes\n"}]),
    );
    std::fs::write(dir.join("new/notes.md"), b"someone else").unwrap();
    assert_eq!(
        code(&fresh.call(
            "document.save",
            json!({"expectedVersion": 2, "changeId": "ns"})
        )),
        "conflict"
    );
    std::fs::remove_file(dir.join("new/notes.md")).unwrap();
    assert_eq!(
        fresh
            .call(
                "document.save",
                json!({"expectedVersion": 2, "changeId": "ns2"})
            )
            .0,
        200
    );
    assert_eq!(
        std::fs::read(dir.join("new/notes.md")).unwrap(),
        b"# notes\n"
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn opening_refuses_bad_files_and_limits_are_named() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let limits = state.path().join("limits.json");
    std::fs::write(
        &limits,
        r#"{"documents": {"maxBuffers": 2, "maxBufferBytes": 64, "maxTotalBytes": 100}}"#,
    )
    .unwrap();
    let sdir = state.path().join("s");
    let args = [
        "--root",
        root.path().to_str().unwrap(),
        "--state-dir",
        sdir.to_str().unwrap(),
        "--limits",
        limits.to_str().unwrap(),
    ];
    let s = Service::spawn(&args, &[], root.path(), &state.path().join("s"));
    let (pid, dir) = setup(
        &s,
        &[
            ("bad.txt", b"ok \xff\xfe"),
            ("big.txt", &[b'x'; 65]),
            ("a.txt", &[b'a'; 60]),
            ("b.txt", &[b'b'; 45]),
            ("c.txt", b"c"),
        ],
    );
    std::os::unix::fs::symlink(dir.join("a.txt"), dir.join("link.txt")).unwrap();
    let open_r = |path: &str| s.call("document.open", json!({"projectId": pid, "path": path}));
    let bad = open_r("bad.txt");
    assert_eq!(
        (code(&bad), bad.1["error"]["details"]["index"].as_u64()),
        ("invalid", Some(3))
    );
    assert_eq!(code(&open_r("link.txt")), "invalid");
    assert_eq!(code(&open_r("../etc/passwd")), "invalid");
    assert_eq!(code(&open_r(".rho/lease")), "invalid");
    let big = open_r("big.txt");
    assert_eq!(
        (code(&big), big.1["error"]["details"]["limit"].as_str()),
        ("limit", Some("documents.maxBufferBytes"))
    );
    let (a, _) = open(&s, &pid, "a.txt");
    let total = open_r("b.txt").clone();
    assert_eq!(
        total.1["error"]["details"]["limit"],
        "documents.maxTotalBytes"
    );
    let grow = a.edit(1, "g", json!([{"start": 0, "end": 0, "text": "xxxxx"}]));
    assert_eq!(
        grow.1["error"]["details"]["limit"], "documents.maxBufferBytes",
        "{}",
        grow.1
    );
    open(&s, &pid, "c.txt");
    let third = s.call("project.create", json!({"name": "other"}));
    assert_eq!(third.0, 200);
    std::fs::write(dir.join("d.txt"), b"d").unwrap();
    assert_eq!(
        open_r("d.txt").1["error"]["details"]["limit"],
        "documents.maxBuffers"
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn acknowledged_edits_survive_kill_9_and_replay_to_the_same_text() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (pid, _) = setup(&s, &[("log.txt", b"")]);
    let did = open(&s, &pid, "log.txt").0.id;
    let (port, token) = (s.port(), s.token());
    let doc_id = did.clone();
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::<(u64, String)>::new()));
    let writer = {
        let acked = acked.clone();
        let pid = pid.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            let mut version = 1;
            for n in 0.. {
                let piece = format!("{n}é😀,");
                let body = json!({"projectId": pid, "documentId": did, "expectedVersion": version, "changeId": format!("w{n}"),
                    "edits": [{"start": text.encode_utf16().count(), "end": text.encode_utf16().count(), "text": piece}]});
                match std::panic::catch_unwind(|| {
                    support::http(
                        port,
                        "POST",
                        "/api/v2/document.edit",
                        Some(&token),
                        &[],
                        &body.to_string(),
                    )
                }) {
                    Ok((200, v)) => {
                        text.push_str(&piece);
                        version = v["value"]["version"].as_u64().unwrap();
                        acked.lock().unwrap().push((version, text.clone()));
                    }
                    _ => break,
                }
            }
        })
    };
    // Kill in the middle of the edits, once they are well under way.
    until("edits are acknowledged", Duration::from_secs(30), || {
        acked.lock().unwrap().len() > 50
    });
    s.kill9();
    writer.join().unwrap();
    let acked = acked.lock().unwrap().clone();
    assert!(acked.len() > 5, "only {} edits acknowledged", acked.len());
    let (last_version, last_text) = acked.last().unwrap().clone();
    let s = Service::start(root.path(), state.path());
    let doc = Doc {
        s: &s,
        project: pid.clone(),
        id: doc_id,
    };
    let (version, text) = doc.text();
    // Every acknowledged version is there (an unacknowledged later one may be too, whole).
    assert!(
        version >= last_version,
        "version {version} < acknowledged {last_version}"
    );
    assert!(
        text.starts_with(&last_text),
        "the replayed text lost acknowledged edits"
    );
    assert!(text.ends_with(','), "no half edit: {text:?}");
    let (_, r) = doc.call("document.read", json!({}));
    assert_eq!(
        r["value"]["dirty"], true,
        "unsaved acknowledged edits survive as a dirty buffer"
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn two_writers_with_conditional_versions_never_lose_an_edit() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (pid, _) = setup(&s, &[("shared.txt", b"")]);
    let (doc, _) = open(&s, &pid, "shared.txt");
    let (port, token) = (s.port(), s.token());
    // The person (local, no credential) and the operator each append their own marks, retrying
    // on `stale` by reading the current version first.
    let workers: Vec<_> = [None, Some(token)]
        .into_iter()
        .enumerate()
        .map(|(w, tok)| {
            let (pid, did) = (pid.clone(), doc.id.clone());
            std::thread::spawn(move || {
                let mut done = 0;
                let mut tries = 0;
                while done < 15 && tries < 500 {
                    tries += 1;
                    let (_, r) = support::http(port, "POST", "/api/v2/document.read", tok.as_deref(), &[], &json!({"projectId": pid, "documentId": did}).to_string());
                    let v = r["value"]["version"].as_u64().unwrap();
                    let len = r["value"]["length"].as_u64().unwrap();
                    let body = json!({"projectId": pid, "documentId": did, "expectedVersion": v, "changeId": format!("w{w}-{done}"),
                        "edits": [{"start": len, "end": len, "text": format!("{w}")}]});
                    let (status, e) = support::http(port, "POST", "/api/v2/document.edit", tok.as_deref(), &[], &body.to_string());
                    match status {
                        200 => done += 1,
                        409 => assert_eq!(e["error"]["code"], "stale"),
                        other => panic!("unexpected {other}: {e}"),
                    }
                }
                done
            })
        })
        .collect();
    let done: Vec<usize> = workers.into_iter().map(|w| w.join().unwrap()).collect();
    assert_eq!(done, [15, 15]);
    let (version, text) = doc.text();
    assert_eq!(version, 31, "one version per accepted edit");
    assert_eq!(text.matches('0').count(), 15);
    assert_eq!(text.matches('1').count(), 15);
    let (_, snap) = s.call("observation.snapshot", json!({"projectId": pid}));
    let facts = &snap["value"]["project"]["documents"][0];
    assert_eq!(
        (
            facts["path"].as_str(),
            facts["version"].as_u64(),
            facts["dirty"].as_bool()
        ),
        (Some("shared.txt"), Some(31), Some(true))
    );
    assert_eq!(s.terminate(), Some(0));
}
