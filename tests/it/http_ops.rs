//! The service's operations over HTTP, the event stream, and a kill -9 during a burst of creates.

use crate::support::{http, until, Events, Service};
use serde_json::json;
use std::time::Duration;

fn start() -> (tempfile::TempDir, tempfile::TempDir, Service) {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    (root, state, s)
}

#[test]
fn projects_are_created_opened_listed_and_browsed() {
    let (root, _state, s) = start();
    let (status, created) = s.call("project.create", json!({"name": "alpha"}));
    assert_eq!(status, 200, "{created}");
    let id = created["value"]["id"].as_str().unwrap().to_string();
    assert_eq!(uuid::Uuid::parse_str(&id).unwrap().get_version_num(), 4);
    // The same name again: conflict naming the existing id (how a retry learns it).
    let (status, again) = s.call("project.create", json!({"name": "alpha"}));
    assert_eq!(
        (status, again["error"]["code"].as_str()),
        (409, Some("conflict"))
    );
    assert_eq!(again["error"]["details"]["id"], id);
    for bad in ["", "../x", "a/b", ".hidden"] {
        let (status, e) = s.call("project.create", json!({"name": bad}));
        assert_eq!(
            (status, e["error"]["code"].as_str()),
            (400, Some("invalid")),
            "{bad:?}"
        );
    }
    let (status, e) = s.call("project.create", json!({"name": "x", "extra": 1}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid"))
    );

    // An existing folder is registered by project.open (relative to the root).
    let folder = root.path().join("existing");
    std::fs::create_dir_all(folder.join("data")).unwrap();
    for i in 0..205 {
        std::fs::write(folder.join(format!("f{i:03}.txt")), "x").unwrap();
    }
    let (status, opened) = s.call("project.open", json!({"path": "existing"}));
    assert_eq!(status, 200, "{opened}");
    let existing = opened["value"]["id"].as_str().unwrap().to_string();
    let (_, again) = s.call("project.open", json!({"path": "existing"}));
    assert_eq!(
        again["value"]["id"], existing,
        "opening twice is idempotent"
    );
    let (status, e) = s.call("project.open", json!({"path": "../etc"}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
    let (status, e) = s.call("project.open", json!({"path": "missing"}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found"))
    );

    let (_, list) = s.call("project.list", json!({}));
    let names: Vec<&str> = list["value"]["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"alpha") && names.contains(&"existing"));

    // Entries: sorted, paged by 200, .rho hidden, sub-folders.
    let (_, page) = s.call("project.entries", json!({"projectId": existing}));
    let entries = page["value"]["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 200);
    assert_eq!(entries[0]["name"], "data");
    assert_eq!(entries[0]["kind"], "directory");
    assert!(entries.iter().all(|e| e["name"] != ".rho"));
    let next = page["value"]["next"].as_str().unwrap().to_string();
    let (_, page2) = s.call(
        "project.entries",
        json!({"projectId": existing, "cursor": next}),
    );
    assert_eq!(page2["value"]["entries"].as_array().unwrap().len(), 6);
    assert!(page2["value"].get("next").is_none());
    let f = &page2["value"]["entries"][0];
    assert_eq!(
        (f["kind"].as_str(), f["bytes"].as_u64()),
        (Some("file"), Some(1))
    );
    assert!(f["modified"].as_str().unwrap().ends_with('Z'));
    let (status, e) = s.call(
        "project.entries",
        json!({"projectId": existing, "path": ".rho"}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
    let (status, e) = s.call(
        "project.entries",
        json!({"projectId": uuid::Uuid::new_v4().to_string()}),
    );
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    let (status, e) = s.call("project.entries", json!({"projectId": "not-a-uuid"}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (400, Some("invalid"))
    );
    // The local browser (no credential, same OS user) can do the same.
    let (status, _) = s.call_local("project.list", json!({}));
    assert_eq!(status, 200);
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn protocol_describe_pages_summaries_and_serves_each_contract() {
    let (_root, _state, s) = start();
    // Every page of summaries, following `next` (a page holds at most 50).
    let mut all = Vec::new();
    let mut cursor = serde_json::Value::Null;
    loop {
        let (_, page) = s.call("protocol.describe", json!({"cursor": cursor}));
        let listed = page["value"]["operations"].as_array().unwrap();
        assert!(listed.len() <= 50, "{}", listed.len());
        all.extend(listed.iter().cloned());
        cursor = page["value"]["next"].clone();
        if cursor.is_null() {
            break;
        }
    }
    let ops = &all;
    let index: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("protocol/index.json"),
        )
        .unwrap(),
    )
    .unwrap();
    assert_eq!(ops.len(), index["operations"].as_array().unwrap().len());
    for op in ops {
        let name = op["name"].as_str().unwrap();
        let (status, one) = s.call("protocol.describe", json!({"operation": name}));
        assert_eq!(status, 200);
        assert_eq!(one["value"]["contract"]["hash"], op["hash"]);
        // Every declared operation is served: an empty body never answers "unknown operation".
        let (_, reply) = s.call(name, json!({}));
        assert!(
            reply["error"]["message"]
                .as_str()
                .is_none_or(|m| !m.contains("unknown operation")),
            "{name}: {reply}"
        );
    }
    let (status, e) = s.call("protocol.describe", json!({"operation": "no.such"}));
    assert_eq!(
        (status, e["error"]["code"].as_str()),
        (404, Some("not_found"))
    );
    // The contract precondition header: a wrong hash is stale with the current one.
    let (status, e) = http(
        s.port(),
        "POST",
        "/api/v2/project.list",
        Some(&s.token()),
        &[("Rho-Contract", "sha256:00")],
        "{}",
    );
    assert_eq!((status, e["error"]["code"].as_str()), (409, Some("stale")));
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn changes_show_up_on_the_event_stream_resumable_by_cursor() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (_, snap) = s.call_local("observation.snapshot", json!({}));
    let cursor = snap["value"]["cursor"].as_str().unwrap().to_string();
    let port = s.port();
    // Subscribed before the creates: `open` returns once the service has the subscription.
    let events = Events::open(port, &format!("?cursor={cursor}"), None);
    let reader = std::thread::spawn(move || events.frames(2));
    let (_, a) = s.call("project.create", json!({"name": "a"}));
    let (_, b) = s.call("project.create", json!({"name": "b"}));
    let events = reader.join().unwrap();
    assert_eq!(events.len(), 2, "{events:?}");
    assert_eq!(events[0].1, "project.changed");
    assert_eq!(events[0].2["projectId"], a["value"]["id"]);
    assert_eq!(events[1].2["projectId"], b["value"]["id"]);
    // Resuming after the first event delivers only the second.
    let resumed = Events::open(port, "", Some(&events[0].0)).frames(1);
    assert_eq!(resumed[0].2["projectId"], b["value"]["id"]);
    let old = events[0].0.clone();
    assert_eq!(s.terminate(), Some(0));
    // A cursor from an earlier run is a gap: the client takes a new snapshot.
    let s = Service::start(root.path(), state.path());
    let gap = Events::open(s.port(), &format!("?cursor={old}"), None).frames(1);
    assert_eq!(gap[0].1, "gap", "{gap:?}");
    assert_eq!(gap[0].2["requested"], old);
    assert_eq!(s.terminate(), Some(0));
}

#[test]
fn a_kill_9_during_a_burst_of_creates_keeps_every_acknowledged_project() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let s = Service::start(root.path(), state.path());
    let (port, token) = (s.port(), s.token());
    let acked = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let workers: Vec<_> = (0..4)
        .map(|w| {
            let acked = acked.clone();
            let token = token.clone();
            std::thread::spawn(move || {
                for i in 0.. {
                    let body = json!({"name": format!("p{w}-{i}")}).to_string();
                    let r = std::panic::catch_unwind(|| {
                        http(
                            port,
                            "POST",
                            "/api/v2/project.create",
                            Some(&token),
                            &[],
                            &body,
                        )
                    });
                    match r {
                        Ok((200, v)) => acked
                            .lock()
                            .unwrap()
                            .push(v["value"]["id"].as_str().unwrap().to_string()),
                        _ => break,
                    }
                }
            })
        })
        .collect();
    // Kill in the middle of the burst, once it is well under way.
    until("creates are acknowledged", Duration::from_secs(30), || {
        acked.lock().unwrap().len() >= 20
    });
    s.kill9();
    for w in workers {
        let _ = w.join();
    }
    let acked = acked.lock().unwrap().clone();
    assert!(
        acked.len() >= 5,
        "too few creates were acknowledged ({})",
        acked.len()
    );
    let s = Service::start(root.path(), state.path());
    let (_, list) = s.call("project.list", json!({}));
    let listed: Vec<&serde_json::Value> = list["value"]["projects"]
        .as_array()
        .unwrap()
        .iter()
        .collect();
    for id in &acked {
        let p = listed
            .iter()
            .find(|p| p["id"] == *id.as_str())
            .unwrap_or_else(|| panic!("acknowledged project {id} is missing"));
        assert_eq!(p["available"], true, "{p}");
    }
    assert_eq!(s.terminate(), Some(0));
}
