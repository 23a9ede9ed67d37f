//! Agent activity (issue 7): every call by an Agent, refused or not, recorded in its project (no inputs, no token), on the event stream, bounded, listed with the agents; bindings.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_util;
mod util;

use agent_util::{read_events, Env};
use serde_json::{json, Value};
use std::time::Duration;

#[test]
fn every_agent_call_is_recorded_without_inputs() {
    let env = Env::start(&[], None, "act");
    std::fs::write(env.dir.join("a.txt"), "hello").unwrap();
    env.grant(
        "rec",
        Some(&["project.entries", "document.open", "document.read"]),
    );
    let token = env.token("rec");
    // Listen first: every recorded call is announced.
    let port = env.service.port();
    let query = format!("?projectId={}", env.project);
    let listener = std::thread::spawn(move || read_events(port, &query, "activity.changed", 6));
    std::thread::sleep(Duration::from_millis(200));

    let (status, d) = env.agent_call(&token, "document.open", json!({"path": "a.txt"}));
    assert_eq!(status, 200, "{d}");
    let doc = d["value"]["id"].as_str().unwrap().to_string();
    // Outside the grant.
    assert_eq!(
        env.agent_call(&token, "document.edit", json!({"documentId": doc}))
            .0,
        403
    );
    // Schema rejection (a secret-looking input must not be recorded).
    let (status, _) = env.agent_call(
        &token,
        "project.entries",
        json!({"path": "SECRET-INPUT", "bogus": 1}),
    );
    assert_eq!(status, 400);
    // Another project: not_found.
    let other = uuid::Uuid::new_v4().to_string();
    assert_eq!(
        env.agent_call(&token, "project.entries", json!({"projectId": other}))
            .0,
        404
    );
    // A stale contract precondition.
    let (status, r) = env.agent_call_with_contract(
        &token,
        "document.read",
        "sha256:00",
        json!({"documentId": doc}),
    );
    assert_eq!(status, 409, "{r}");
    assert!(r["error"]["details"]["currentRef"]
        .as_str()
        .unwrap()
        .starts_with("sha256:"));
    // The adapter reports a local refusal.
    let (status, r) = env.agent_call(&token, "activity.report",
        json!({"operation": "document.edit", "refusal": {"code": "invalid", "reason": "SECRET-INPUT is not a string"}}));
    assert_eq!(status, 200, "{r}");

    let snap = env.wait_activity(6);
    let acts = snap["activity"].as_array().unwrap();
    let row = |i: usize| {
        (
            acts[i]["method"].as_str().unwrap(),
            acts[i]["outcome"].as_str().unwrap(),
            acts[i]["code"].clone(),
            acts[i]["source"].as_str().unwrap(),
        )
    };
    assert_eq!(row(0), ("document.open", "ok", Value::Null, "service"));
    assert_eq!(acts[0]["ids"]["id"], doc.as_str());
    assert_eq!(acts[0]["principal"], "agent:rec");
    assert_eq!(
        row(1),
        ("document.edit", "refused", json!("forbidden"), "service")
    );
    // Refused before its body was read: no ids.
    assert_eq!(acts[1]["ids"], json!({}));
    assert_eq!(
        row(2),
        ("project.entries", "refused", json!("invalid"), "service")
    );
    assert_eq!(
        row(3),
        ("project.entries", "refused", json!("not_found"), "service")
    );
    assert_eq!(
        row(4),
        ("document.read", "refused", json!("stale"), "service")
    );
    assert_eq!(
        row(5),
        ("document.edit", "refused", json!("invalid"), "adapter")
    );
    assert!(acts
        .iter()
        .all(|a| a["time"].as_str().is_some_and(|t| t.ends_with('Z'))));
    let text = snap.to_string();
    assert!(!text.contains("SECRET-INPUT") && !text.contains(&token));
    assert_eq!(snap["activityCursor"]["lastSeq"], 6);
    // The agents listing: label, methods, expiry, latest call; no token.
    let agents = snap["agents"].as_array().unwrap();
    assert_eq!(agents.len(), 1);
    assert_eq!(agents[0]["label"], "rec");
    assert_eq!(
        agents[0]["methods"],
        json!(["document.open", "document.read", "project.entries"])
    );
    assert!(agents[0]["expiresAt"].is_string());
    assert_eq!(agents[0]["latestCall"]["method"], "document.edit");
    assert_eq!(agents[0]["latestCall"]["seq"], 6);
    let events = listener.join().unwrap();
    assert_eq!(events.len(), 6, "{events:?}");
    assert!(events
        .iter()
        .all(|e| e["projectId"] == env.project.as_str()));
    assert_eq!(events[1]["method"], "document.edit");
    // Calls by the person are not Agent activity.
    env.service
        .call("project.entries", json!({"projectId": env.project}));
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(env.snapshot()["activity"].as_array().unwrap().len(), 6);
}

#[test]
fn activity_is_bounded_and_survives_a_restart() {
    let env = Env::start(&[], Some(json!({"maxActivities": 3})), "bounded");
    env.grant("b", Some(&["project.entries"]));
    let token = env.token("b");
    for _ in 0..5 {
        assert_eq!(env.agent_call(&token, "project.entries", json!({})).0, 200);
    }
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    let snap = loop {
        let s = env.snapshot();
        if s["activityCursor"]["lastSeq"] == 5 || std::time::Instant::now() > deadline {
            break s;
        }
        std::thread::sleep(Duration::from_millis(30));
    };
    let seqs: Vec<u64> = snap["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [3, 4, 5]);
    assert_eq!(snap["activityCursor"]["evicted"], 2);
    assert_eq!(snap["activityCursor"]["oldestSeq"], 3);
    assert_eq!(snap["activityCursor"]["maxActivities"], 3);
    // The record is journaled: a restart keeps it.
    let (root, state) = (env.service.root.clone(), env.service.state.clone());
    let limits = state.parent().unwrap().join("limits.json");
    let Env {
        service, project, ..
    } = env;
    assert_eq!(service.terminate(), Some(0));
    let s = util::Service::spawn(
        &[
            "--root",
            root.to_str().unwrap(),
            "--state-dir",
            state.to_str().unwrap(),
            "--limits",
            limits.to_str().unwrap(),
        ],
        &[],
        &root,
        &state,
    );
    let (_, snap) = s.call("observation.snapshot", json!({"projectId": project}));
    let seqs: Vec<u64> = snap["value"]["activity"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["seq"].as_u64().unwrap())
        .collect();
    assert_eq!(seqs, [3, 4, 5]);
    assert_eq!(snap["value"]["agents"][0]["latestCall"]["seq"], 5);
}

#[test]
fn bindings_are_bounded_and_show_their_sessions_receipts() {
    let env = Env::start(&[], Some(json!({"maxBindings": 2})), "bind");
    env.grant(
        "one",
        Some(&[
            "project.entries",
            "binding.open",
            "binding.close",
            "binding.list",
            "binding.activity",
        ]),
    );
    env.grant("two", Some(&["binding.list", "binding.activity"]));
    let (t1, t2) = (env.token("one"), env.token("two"));
    let open = |change: &str| {
        env.agent_call(
            &t1,
            "binding.open",
            json!({"changeId": change, "label": "Claude Code in ~/x", "client": "claude-code"}),
        )
    };
    let (status, b1) = open("c1");
    assert_eq!(status, 200, "{b1}");
    assert_eq!(b1["value"]["session"], "one");
    assert_eq!(b1["value"]["closedAt"], Value::Null);
    // Same identity, same input: the same binding.
    assert_eq!(open("c1").1["value"]["bindingId"], b1["value"]["bindingId"]);
    assert_eq!(open("c2").0, 200);
    let (status, r) = open("c3");
    assert_eq!(status, 429, "{r}");
    assert_eq!(r["error"]["details"]["limit"], "maxBindings");
    // The person opens one for a session too, with the session named.
    let (status, _) = env.service.call(
        "binding.open",
        json!({"projectId": env.project, "changeId": "p1", "label": "x", "client": "codex"}),
    );
    assert_eq!(status, 400);
    let id = b1["value"]["bindingId"].as_str().unwrap().to_string();
    // Another session cannot close or read it.
    assert_eq!(
        env.agent_call(&t2, "binding.activity", json!({"bindingId": id}))
            .0,
        404
    );
    let (status, c) = env.agent_call(
        &t1,
        "binding.close",
        json!({"changeId": "x1", "bindingId": id}),
    );
    assert_eq!(status, 200, "{c}");
    assert!(c["value"]["closedAt"].is_string());
    assert_eq!(open("c3").0, 200, "closing made room");
    for _ in 0..3 {
        env.agent_call(&t1, "project.entries", json!({}));
    }
    env.wait_activity(9);
    let (status, page) = env.agent_call(
        &t1,
        "binding.activity",
        json!({"bindingId": id, "limit": 4}),
    );
    assert_eq!(status, 200, "{page}");
    let recs = page["value"]["records"].as_array().unwrap();
    assert_eq!(recs.len(), 4);
    assert!(recs.iter().all(|r| r["principal"] == "agent:one"));
    let next = page["value"]["nextCursor"].as_str().unwrap().to_string();
    let (_, rest) = env.agent_call(
        &t1,
        "binding.activity",
        json!({"bindingId": id, "cursor": next}),
    );
    let more = rest["value"]["records"].as_array().unwrap();
    assert!(!more.is_empty() && more[0]["seq"].as_u64() > recs[3]["seq"].as_u64());
    let (_, list) = env.agent_call(&t2, "binding.list", json!({}));
    assert_eq!(list["value"]["bindings"].as_array().unwrap().len(), 3);
}
