//! The calls socket (`GET /api/v2/calls`, decision 0418) on the real `rho`: the same checks, identities and envelopes as `POST`, refusals before the upgrade, and malformed messages answered without closing.

use crate::support::env::{Env, Launch};
use crate::support::ws::{connect, Socket, Upgrade};
use serde_json::{json, Value};

fn open(env: &Env, headers: &[(&str, &str)]) -> Socket {
    match connect(env.service.port(), headers) {
        Upgrade::Open(s) => s,
        Upgrade::Refused(status, body) => panic!("refused {status}: {body}"),
    }
}

fn doc(env: &Env) -> (String, u64) {
    std::fs::write(env.dir.join("a.R"), "x <- 1\n").unwrap();
    let (status, r) = env.service.call(
        "document.open",
        json!({"projectId": env.project, "path": "a.R"}),
    );
    assert_eq!(status, 200, "{r}");
    (
        r["value"]["id"].as_str().unwrap().to_string(),
        r["value"]["version"].as_u64().unwrap(),
    )
}

fn code(answer: &Value) -> &str {
    answer["envelope"]["error"]["code"].as_str().unwrap_or("ok")
}

#[test]
fn a_local_tab_edits_over_the_socket_exactly_as_over_post() {
    let env = Env::launch(Launch::default());
    let (id, v0) = doc(&env);
    let origin = format!("http://127.0.0.1:{}", env.service.port());
    let mut s = open(
        &env,
        &[("Origin", &origin), ("Sec-Fetch-Site", "same-origin")],
    );
    let edit = json!({"projectId": env.project, "documentId": id, "expectedVersion": v0,
        "changeId": "k1", "edits": [{"start": 7, "end": 7, "text": "y😀\r\n"}]});
    let a = s.call(1, "document.edit", edit.clone());
    assert_eq!(
        (a["id"].as_u64(), a["status"].as_u64()),
        (Some(1), Some(200)),
        "{a}"
    );
    let v1 = a["envelope"]["value"]["version"].as_u64().unwrap();
    assert_eq!(v1, v0 + 1);
    // The same changeId again is the same answer, not a second edit (identities as for POST).
    let again = s.call(2, "document.edit", edit);
    assert_eq!(
        again["envelope"]["value"]["version"].as_u64(),
        Some(v1),
        "{again}"
    );
    let (_, read) = env.service.call(
        "document.read",
        json!({"projectId": env.project, "documentId": id}),
    );
    assert_eq!(read["value"]["text"], "x <- 1\ny😀\r\n");
    assert_eq!(read["value"]["version"].as_u64(), Some(v1));
    // A stale base, an unknown operation and a stale contract: the POST's codes and statuses.
    let stale = s.call(
        3,
        "document.edit",
        json!({"projectId": env.project, "documentId": id,
        "expectedVersion": v0, "changeId": "k2", "edits": [{"start": 0, "end": 0, "text": "z"}]}),
    );
    assert_eq!(
        (code(&stale), stale["status"].as_u64()),
        ("stale", Some(409)),
        "{stale}"
    );
    let unknown = s.call(4, "no.such", json!({}));
    assert_eq!(
        (code(&unknown), unknown["status"].as_u64()),
        ("not_found", Some(404))
    );
    s.send(
        &json!({"id": 5, "op": "document.read", "body": {"projectId": env.project,
        "documentId": id}, "contract": "sha256:00"})
        .to_string(),
    );
    let contract = s.recv().unwrap();
    assert_eq!(code(&contract), "stale", "{contract}");
    assert!(contract["envelope"]["error"]["details"]["currentHash"].is_string());
    // A body that does not parse is `invalid` naming the problem; the socket stays open.
    let bad = s.call(
        6,
        "document.edit",
        json!({"projectId": env.project, "documentId": id}),
    );
    assert_eq!(code(&bad), "invalid", "{bad}");
    s.send("not json");
    let malformed = s.recv().unwrap();
    assert_eq!(malformed["id"], Value::Null);
    assert_eq!(code(&malformed), "invalid");
    assert!(malformed["envelope"]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("\"id\""));
    let ok = s.call(
        7,
        "document.read",
        json!({"projectId": env.project, "documentId": id}),
    );
    assert_eq!(
        ok["envelope"]["value"]["version"].as_u64(),
        Some(v1),
        "{ok}"
    );
}

#[test]
fn refusals_happen_before_the_upgrade_and_each_call_is_checked_again() {
    let env = Env::launch(Launch {
        limits: Some(json!({"maxRequestBytes": 4096})),
        ..Launch::default()
    });
    let port = env.service.port();
    // Another origin can neither open the socket nor call through it.
    match connect(port, &[("Origin", "http://evil.example")]) {
        Upgrade::Refused(status, body) => {
            assert_eq!(status, 403, "{body}");
            assert_eq!(body["error"]["code"], "forbidden");
        }
        Upgrade::Open(_) => panic!("a cross-origin page opened the calls socket"),
    }
    match connect(port, &[("Sec-Fetch-Site", "cross-site")]) {
        Upgrade::Refused(status, _) => assert_eq!(status, 403),
        Upgrade::Open(_) => panic!("a cross-site request opened the calls socket"),
    }
    // A credential that is not valid is refused before the upgrade.
    match connect(port, &[("Authorization", "Bearer nope")]) {
        Upgrade::Refused(status, body) => {
            assert_eq!(status, 401, "{body}");
            assert_eq!(body["error"]["code"], "unauthorized");
        }
        Upgrade::Open(_) => panic!("a bad token opened the calls socket"),
    }
    // An Agent's socket has the Agent's grant: a method outside it is forbidden per call, and
    // once the grant is revoked the next call on the same socket is refused.
    env.grant("claude-code", Some(&["document.read"]));
    let token = env.token("claude-code");
    let bearer = format!("Bearer {token}");
    let mut s = open(&env, &[("Authorization", &bearer)]);
    let list = s.call(1, "project.list", json!({}));
    assert_eq!(code(&list), "forbidden", "{list}");
    let (id, _) = doc(&env);
    let read = s.call(
        2,
        "document.read",
        json!({"projectId": env.project, "documentId": id}),
    );
    assert_eq!(read["status"].as_u64(), Some(200), "{read}");
    let (status, r) = env.service.call(
        "session.revoke",
        json!({"projectId": env.project, "session": "claude-code"}),
    );
    assert_eq!(status, 200, "{r}");
    let after = s.call(
        3,
        "document.read",
        json!({"projectId": env.project, "documentId": id}),
    );
    assert_eq!(code(&after), "unauthorized", "{after}");
    // A body over maxRequestBytes is the POST's `limit`.
    let mut local = open(&env, &[]);
    let big = "y".repeat(5000);
    let over = local.call(
        1,
        "document.edit",
        json!({"projectId": env.project, "documentId": id,
        "expectedVersion": 1, "changeId": "big", "edits": [{"start": 0, "end": 0, "text": big}]}),
    );
    assert_eq!(
        (code(&over), over["status"].as_u64()),
        ("limit", Some(413)),
        "{over}"
    );
}
