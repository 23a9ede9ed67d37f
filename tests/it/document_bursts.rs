//! Typing bursts over HTTP: edits naming one `burst` are one `document.undo` step; another author's edit or an undo ends a burst; replay after kill -9 and a clean restart rebuilds the same undo history.

use crate::support::Service;
use serde_json::{json, Value};
use std::path::Path;

/// One buffer of one project, called as the local person or as the operator.
struct Buf {
    project: String,
    id: String,
}

impl Buf {
    fn body(&self, mut body: Value) -> Value {
        body["projectId"] = json!(self.project);
        body["documentId"] = json!(self.id);
        body
    }

    /// An insert of `text` at UTF-16 offset `at` of version `v`, by the local person.
    fn type_at(
        &self,
        s: &Service,
        v: u64,
        at: u64,
        text: &str,
        burst: Option<&str>,
    ) -> (u16, Value) {
        let mut body = json!({"expectedVersion": v, "changeId": format!("k{v}"),
            "edits": [{"start": at, "end": at, "text": text}]});
        if let Some(b) = burst {
            body["burst"] = json!(b);
        }
        s.call_local("document.edit", self.body(body))
    }

    fn undo(&self, s: &Service, v: u64) -> (u16, Value) {
        let body = json!({"expectedVersion": v, "changeId": format!("u{v}")});
        s.call_local("document.undo", self.body(body))
    }

    fn read(&self, s: &Service) -> (u64, String) {
        let (status, r) = s.call("document.read", self.body(json!({})));
        assert_eq!(status, 200, "{r}");
        let v = &r["value"];
        (
            v["version"].as_u64().unwrap(),
            v["text"].as_str().unwrap().to_string(),
        )
    }
}

fn opened(s: &Service, text: &str) -> Buf {
    let (_, p) = s.call("project.create", json!({"name": "bursts"}));
    let project = p["value"]["id"].as_str().unwrap().to_string();
    let dir = Path::new(p["value"]["path"].as_str().unwrap());
    std::fs::write(dir.join("b.txt"), text).unwrap();
    let (status, r) = s.call(
        "document.open",
        json!({"projectId": project, "path": "b.txt"}),
    );
    assert_eq!(status, 200, "{r}");
    assert_eq!(r["value"]["version"], 1);
    Buf {
        project,
        id: r["value"]["id"].as_str().unwrap().to_string(),
    }
}

fn ok(r: (u16, Value)) -> u64 {
    assert_eq!(r.0, 200, "{}", r.1);
    r.1["value"]["version"].as_u64().unwrap()
}

#[test]
fn a_burst_is_one_undo_step_and_replay_rebuilds_it() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let b = opened(&s, "x");
    // The person types "abc" as three edits of burst t1: versions 2..4.
    for (v, (at, key)) in [(1, "a"), (2, "b"), (3, "c")].into_iter().enumerate() {
        assert_eq!(
            ok(b.type_at(&s, v as u64 + 1, at, key, Some("t1"))),
            v as u64 + 2
        );
    }
    // Another author's edit (the operator, naming the same burst) is its own step and ends t1.
    let body = b.body(
        json!({"expectedVersion": 4, "changeId": "op1", "burst": "t1",
        "edits": [{"start": 0, "end": 0, "text": "Z"}]}),
    );
    let (status, r) = s.call("document.edit", body);
    assert_eq!((status, &r["value"]["version"]), (200, &json!(5)), "{r}");
    // The person goes on in t1: a new step, since another edit came between.
    assert_eq!(ok(b.type_at(&s, 5, 5, "d", Some("t1"))), 6);
    assert_eq!(ok(b.type_at(&s, 6, 6, "e", Some("t1"))), 7);
    // Two edits without a burst are two steps, as before.
    assert_eq!(ok(b.type_at(&s, 7, 7, "1", None)), 8);
    assert_eq!(ok(b.type_at(&s, 8, 8, "2", None)), 9);
    assert_eq!(b.read(&s), (9, "Zxabcde12".to_string()));
    // A bad burst id is refused by name.
    let (status, r) = b.type_at(&s, 9, 0, "!", Some(""));
    assert_eq!(
        (status, r["error"]["code"].as_str()),
        (400, Some("invalid")),
        "{r}"
    );

    // Killed: the new process rebuilds the undo steps from the journal.
    s.kill9();
    let s = Service::start(root.path(), state.path());
    assert_eq!(b.read(&s), (9, "Zxabcde12".to_string()));
    assert_eq!(ok(b.undo(&s, 9)), 10);
    assert_eq!(b.read(&s).1, "Zxabcde1");
    assert_eq!(ok(b.undo(&s, 10)), 11);
    assert_eq!(b.read(&s).1, "Zxabcde");
    // The second part of t1 ("de") is one step.
    assert_eq!(ok(b.undo(&s, 11)), 12);
    assert_eq!(b.read(&s).1, "Zxabc");

    // A clean restart (snapshot or replay, whichever opens it) keeps the rest of the history.
    assert_eq!(s.terminate(), Some(0));
    let s = Service::start(root.path(), state.path());
    assert_eq!(ok(b.undo(&s, 12)), 13);
    assert_eq!(b.read(&s).1, "xabc", "the operator's edit was its own step");
    // The whole first part of t1 ("abc") is one step.
    assert_eq!(ok(b.undo(&s, 13)), 14);
    assert_eq!(b.read(&s), (14, "x".to_string()));
    let (status, r) = b.undo(&s, 14);
    assert_eq!(
        (status, r["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn an_undo_ends_a_burst() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let b = opened(&s, "");
    assert_eq!(ok(b.type_at(&s, 1, 0, "ab", None)), 2);
    assert_eq!(ok(b.type_at(&s, 2, 2, "c", Some("t2"))), 3);
    assert_eq!(ok(b.type_at(&s, 3, 3, "😀", Some("t2"))), 4);
    assert_eq!(ok(b.undo(&s, 4)), 5);
    assert_eq!(b.read(&s).1, "ab", "the burst was undone whole");
    // Typing on in the same burst after the undo starts a new step.
    assert_eq!(ok(b.type_at(&s, 5, 2, "x", Some("t2"))), 6);
    assert_eq!(ok(b.type_at(&s, 6, 3, "y", Some("t2"))), 7);
    assert_eq!(ok(b.undo(&s, 7)), 8);
    assert_eq!(b.read(&s).1, "ab");
    assert_eq!(ok(b.undo(&s, 8)), 9);
    assert_eq!(b.read(&s), (9, String::new()));
    assert_eq!(s.terminate(), Some(0));
}
