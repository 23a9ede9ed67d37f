//! `GET /api/v2/events`: resume, Last-Event-ID, gaps, the subscription bound, filtering, shutdown.

use crate::client::*;
use crate::util::*;
use serde_json::json;

#[test]
fn events_resume_from_a_cursor_and_last_event_id_wins() {
    let s = start();
    let start_cursor = s.state.events.current_cursor();
    let c1 = publish(&s, "a.changed", None);
    publish(&s, "b.changed", None);
    let mut sse = s.events(&format!("?cursor={start_cursor}"), &[]);
    assert_eq!(sse.status, 200);
    let f = sse.next().unwrap();
    assert_eq!(
        (f.id.as_deref(), f.event.as_str()),
        (Some(c1.as_str()), "a.changed")
    );
    assert_eq!(sse.next().unwrap().event, "b.changed");
    let c3 = publish(&s, "c.changed", None);
    let f = sse.next().unwrap();
    assert_eq!(
        (f.id.clone(), f.json()["n"].clone()),
        (Some(c3), json!("c.changed"))
    );
    // A reconnecting EventSource repeats the URL's cursor but sends Last-Event-ID: that wins.
    let mut again = s.events(
        &format!("?cursor={start_cursor}"),
        &[&format!("Last-Event-ID: {c1}")],
    );
    assert_eq!(again.next().unwrap().event, "b.changed");
}

#[test]
fn events_gap_for_old_foreign_and_malformed_cursors() {
    let s = start();
    let old = s.state.events.current_cursor();
    for _ in 0..300 {
        publish(&s, "x.changed", None);
    }
    let foreign = rho_actors::events::EventBus::new(rho_actors::events::BusConfig {
        retention: 4,
        max_subscriptions: 1,
        max_event_bytes: 10,
    })
    .current_cursor();
    for cursor in [old.as_str(), foreign.as_str(), "garbage", "1"] {
        let mut sse = s.events(&format!("?cursor={cursor}"), &[]);
        assert_eq!(sse.status, 200);
        let f = sse.next().unwrap();
        assert_eq!(f.event, "gap", "{cursor}");
        assert_eq!(f.json()["requested"], cursor);
        assert!(f.json()["oldest"].is_string());
        assert!(sse.next().is_none(), "the stream ends after a gap");
    }
}

#[test]
fn the_ninth_subscription_is_refused() {
    let s = start();
    let open: Vec<Sse> = (0..8).map(|_| s.events("", &[])).collect();
    assert!(open.iter().all(|e| e.status == 200));
    let ninth = s.events("", &[]);
    assert_eq!(ninth.status, 429);
    let body = ninth.rest();
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(v["error"]["code"], "limit");
    assert_eq!(
        v["error"]["details"],
        json!({"limit": "maxSubscriptions", "value": 8})
    );
}

#[test]
fn an_agent_sees_only_its_project_and_a_query_narrows() {
    let s = start();
    let auth = format!("Authorization: Bearer {AGENT}");
    let mine = s.agent_project;
    let other = uuid::Uuid::new_v4();
    let mut agent = s.events("", &[&auth]);
    let mut narrowed = s.events(&format!("?projectId={other}"), &[]);
    let mut all = s.events("", &[]);
    publish(&s, "service.changed", None);
    publish(&s, "other.changed", Some(other));
    publish(&s, "mine.changed", Some(mine));
    let f = agent.next().unwrap();
    assert_eq!(f.event, "mine.changed");
    assert_eq!(f.json()["projectId"], mine.to_string());
    assert_eq!(narrowed.next().unwrap().event, "other.changed");
    let kinds: Vec<String> = (0..3).map(|_| all.next().unwrap().event).collect();
    assert_eq!(kinds, ["service.changed", "other.changed", "mine.changed"]);
    let r = s.events(&format!("?projectId={other}"), &[&auth]);
    assert_eq!(r.status, 404);
    assert_eq!(s.events("?projectId=nope", &[]).status, 400);
    assert_eq!(s.events("?bogus=1", &[]).status, 400);
}

#[test]
fn shutdown_closes_streams_and_refuses_everything_new() {
    let s = start();
    let mut open = s.events("", &[]);
    assert_eq!(open.status, 200);
    s.state.begin_shutdown();
    assert!(open.next().is_none(), "the open stream ends");
    let again = s.events("", &[]);
    assert_eq!(again.status, 503);
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[]);
    assert_eq!((r.status, r.code()), (503, "unavailable".into()));
    // Before anything else: even a bad Host gets `unavailable` now.
    let r = s.raw("GET / HTTP/1.1\r\nHost: evil", b"");
    assert_eq!(r.code(), "unavailable");
}
