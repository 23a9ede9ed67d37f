//! The envelope for every bad input, internal faults, the contract header and the status page.

use crate::util::*;
use serde_json::json;

#[test]
fn every_bad_input_gets_the_envelope() {
    let s = start();
    let cases: &[(&str, &str, u16, &str, Option<&str>)] = &[
        ("toy.echo", r#"{"name": "a""#, 400, "invalid", None),
        ("toy.echo", r#"not json"#, 400, "invalid", None),
        (
            "toy.echo",
            r#"{"name":"a","extra":1}"#,
            400,
            "invalid",
            Some("extra"),
        ),
        ("toy.echo", r#"{"name":3}"#, 400, "invalid", Some("name")),
        (
            "toy.echo",
            r#"{"name":"a","items":[1,"x"]}"#,
            400,
            "invalid",
            Some("items[1]"),
        ),
        ("toy.echo", r#"{"name":"\ud800"}"#, 400, "invalid", None),
        ("toy.echo", r#"{"name":"a"} trailing"#, 400, "invalid", None),
        ("toy.nope", r#"{}"#, 404, "not_found", None),
    ];
    for (op, body, status, code, field) in cases {
        let r = s.post(op, body, &[]);
        assert_eq!(
            (r.status, r.code()),
            (*status, code.to_string()),
            "{body}: {}",
            r.body
        );
        assert_eq!(
            r.json()["error"]["details"]["field"].as_str(),
            *field,
            "{body}"
        );
        assert_eq!(r.header("content-type"), Some("application/json"));
    }
    // A body over maxRequestBytes: 413, limit, named — by Content-Length and by a chunked body.
    // Only the head is sent first: the refusal comes before the body is read.
    let r = s.head_only(&format!(
        "POST /api/v2/toy.echo HTTP/1.1\r\nHost: {}\r\nContent-Length: {}",
        s.host(),
        (1 << 20) + 1
    ));
    assert_eq!((r.status, r.code()), (413, "limit".into()));
    assert_eq!(r.json()["error"]["details"]["limit"], "maxRequestBytes");
    // A chunked body (no length up front) is cut off at the limit while it streams.
    let over = (1usize << 20) + 1;
    let chunked = format!("{over:x}\r\n{}", "x".repeat(over));
    let r = s.raw_no_length(
        &format!(
            "POST /api/v2/toy.echo HTTP/1.1\r\nHost: {}\r\nTransfer-Encoding: chunked",
            s.host()
        ),
        chunked.as_bytes(),
    );
    assert_eq!((r.status, r.code()), (413, "limit".into()));
    // Wrong method, unknown route, wrong method on events and the status page.
    let r = s.get("/api/v2/toy.echo", &[]);
    assert_eq!((r.status, r.code()), (405, "invalid".into()));
    assert_eq!(r.header("allow"), Some("POST"));
    for (line, status) in [
        ("GET /nowhere", 404),
        ("POST /api/v2/events", 405),
        ("DELETE /", 405),
        ("GET /api/v2", 404),
    ] {
        let r = s.raw(&format!("{line} HTTP/1.1\r\nHost: {}", s.host()), b"");
        assert_eq!(r.status, status, "{line}");
        r.code();
    }
    // An empty body reads as {} (and here misses a field).
    let r = s.post("toy.echo", "", &[]);
    assert_eq!(r.code(), "invalid");
}

#[test]
fn internal_errors_hide_their_detail_and_carry_a_request_id() {
    let s = start();
    let r = s.post("toy.fail", r#"{"kind":"internal"}"#, &[]);
    assert_eq!((r.status, r.code()), (500, "internal".into()));
    assert!(
        !r.body.contains("secret") && !r.body.contains("EIO"),
        "{}",
        r.body
    );
    let id = r.json()["error"]["details"]["requestId"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(r.json()["error"]["message"].as_str().unwrap().contains(&id));
    let r = s.post("toy.fail", r#"{"kind":"stale"}"#, &[]);
    assert_eq!(
        (
            r.status,
            r.json()["error"]["details"]["currentVersion"].clone()
        ),
        (409, json!(4))
    );
    let r = s.post("toy.fail", r#"{"kind":"limit"}"#, &[]);
    assert_eq!(
        (r.status, r.json()["error"]["details"].clone()),
        (429, json!({"limit": "maxQueue", "value": 32}))
    );
}

#[test]
fn the_contract_header_must_name_the_current_contract() {
    let s = start();
    let hash = format!(
        "sha256:{}",
        rho_actors::contract::registry::contract_hash(&ECHO)
    );
    let r = s.post(
        "toy.echo",
        r#"{"name":"a"}"#,
        &[&format!("Rho-Contract: {hash}")],
    );
    assert_eq!(r.status, 200);
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &["Rho-Contract: sha256:00"]);
    assert_eq!((r.status, r.code()), (409, "stale".into()));
    assert_eq!(r.json()["error"]["details"]["currentHash"], hash.as_str());
}

#[test]
fn status_page_for_the_local_browser() {
    let s = start();
    let r = s.get("/status", &[]);
    assert_eq!(r.status, 200);
    assert!(r.header("content-type").unwrap().starts_with("text/html"));
    assert!(
        r.body.contains("The browser app is at")
            && r.body.contains("example")
            && r.body.contains("maxQueue")
    );
    assert!(r.body.contains("0.1.0-test"));
}
