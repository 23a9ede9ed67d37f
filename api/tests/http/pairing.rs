//! Pairing links: single use, expiry, the cookie and what it grants.

use crate::util::*;

#[test]
fn a_pairing_link_is_single_use_and_gives_a_scoped_cookie() {
    let s = start();
    let link = s.state.pairing.mint(Some("alpha".into()));
    let r = s.get(&link.path, &[]);
    assert_eq!(r.status, 303, "{r:?}");
    assert_eq!(r.header("location"), Some("/"));
    let cookie = r.header("set-cookie").unwrap().to_string();
    for attr in ["HttpOnly", "SameSite=Strict", "Path=/"] {
        assert!(cookie.contains(attr), "{cookie}");
    }
    let value = cookie.split(';').next().unwrap().to_string();
    assert!(value.starts_with("rho_pair="));
    // Used twice: refused, no cookie.
    let r = s.get(&link.path, &[]);
    assert_eq!((r.status, r.code()), (401, "unauthorized".into()));
    assert!(r.header("set-cookie").is_none());
    // The cookie is the paired principal, with its scope.
    let cookie_header = format!("Cookie: {value}");
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[&cookie_header]);
    assert_eq!(
        r.json()["value"]["principal"],
        format!("paired:{}", link.id)
    );
    assert_eq!(s.get("/status", &[&cookie_header]).status, 200);
    // A wrong cookie never falls back to local; nor does a cookie plus a token.
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &["Cookie: rho_pair=forged"]);
    assert_eq!((r.status, r.code()), (401, "unauthorized".into()));
    let both = [
        cookie_header.as_str(),
        &format!("Authorization: Bearer {OPERATOR}"),
    ];
    assert_eq!(s.post("toy.echo", r#"{"name":"a"}"#, &both).status, 401);
    // A folder-scoped tab may observe (it sees only projects the service places in its folder).
    let scoped = s.events("", &[&cookie_header]);
    publish(&s, "elsewhere.changed", Some(uuid::Uuid::new_v4()));
    assert_eq!(scoped.status, 200);
}

#[test]
fn a_late_pairing_link_is_refused() {
    let s = start();
    let link = s.state.pairing.mint(None);
    let unused = s.state.pairing.mint(None);
    s.clock_offset
        .store(301, std::sync::atomic::Ordering::SeqCst);
    let r = s.get(&link.path, &[]);
    assert_eq!((r.status, r.code()), (401, "unauthorized".into()));
    assert!(r.header("set-cookie").is_none());
    assert!(r.json()["error"]["message"]
        .as_str()
        .unwrap()
        .contains("expired"));
    let r = s.get("/pair/not-a-link", &[]);
    assert_eq!(r.code(), "unauthorized");
    drop(unused);
}
