//! Host, Origin and Sec-Fetch-Site on every request; credentials; the OS user behind a connection.

use crate::client::*;
use crate::util::*;
use serde_json::json;

#[test]
fn only_exact_loopback_hosts_are_served() {
    let s = start();
    let p = s.port;
    assert_eq!(s.post("toy.echo", r#"{"name":"a"}"#, &[]).status, 200);
    let ok = s.raw(
        &format!("POST /api/v2/toy.echo HTTP/1.1\r\nHost: localhost:{p}"),
        br#"{"name":"a"}"#,
    );
    assert_eq!(ok.status, 200, "{ok:?}");
    let bad_hosts = [
        format!("evil.example:{p}"),
        format!("127.1:{p}"),
        format!("2130706433:{p}"),
        format!("0x7f000001:{p}"),
        format!("0177.0.0.1:{p}"),
        format!("localhost.:{p}"),
        format!("127.0.0.1.:{p}"),
        format!("LOCALHOST:{p}"),
        format!("LocalHost:{p}"),
        format!("[::ffff:127.0.0.1]:{p}"),
        format!("[::1]:{p}"),
        "127.0.0.1".to_string(),
        "localhost".to_string(),
        format!("127.0.0.1:{}", p.wrapping_add(1)),
    ];
    for host in bad_hosts {
        for path in [
            "POST /api/v2/toy.echo",
            "GET /",
            "GET /api/v2/events",
            "GET /nowhere",
        ] {
            let r = s.raw(
                &format!("{path} HTTP/1.1\r\nHost: {host}"),
                br#"{"name":"a"}"#,
            );
            assert_eq!(
                (r.status, r.code()),
                (403, "forbidden".into()),
                "{path} Host: {host}"
            );
        }
    }
    // No Host at all (HTTP/1.0 allows omitting it), and two Host headers.
    let r = s.raw("POST /api/v2/toy.echo HTTP/1.0", br#"{"name":"a"}"#);
    assert_eq!((r.status, r.code()), (403, "forbidden".into()));
    let r = s.raw(
        &format!("GET / HTTP/1.1\r\nHost: 127.0.0.1:{p}\r\nHost: evil:{p}"),
        b"",
    );
    assert_ne!(r.status, 200);
}

#[test]
fn origin_must_be_the_service_itself_and_cross_site_is_refused() {
    let s = start();
    let p = s.port;
    let good = s.post(
        "toy.echo",
        r#"{"name":"a"}"#,
        &[&format!("Origin: http://127.0.0.1:{p}")],
    );
    assert_eq!(good.status, 200);
    let same = s.post(
        "toy.echo",
        r#"{"name":"a"}"#,
        &["Sec-Fetch-Site: same-origin"],
    );
    assert_eq!(same.status, 200);
    for origin in [
        format!("http://localhost:{p}"),
        format!("https://127.0.0.1:{p}"),
        format!("http://evil.example:{p}"),
        "null".to_string(),
        format!("http://127.0.0.1:{p}/"),
    ] {
        let r = s.post(
            "toy.echo",
            r#"{"name":"a"}"#,
            &[&format!("Origin: {origin}")],
        );
        assert_eq!(
            (r.status, r.code()),
            (403, "forbidden".into()),
            "Origin: {origin}"
        );
    }
    for site in ["cross-site", "same-site"] {
        let r = s.post(
            "toy.echo",
            r#"{"name":"a"}"#,
            &[&format!("Sec-Fetch-Site: {site}")],
        );
        assert_eq!((r.status, r.code()), (403, "forbidden".into()), "{site}");
        let r = s.get("/status", &[&format!("Sec-Fetch-Site: {site}")]);
        assert_eq!(r.status, 403);
    }
}

#[test]
fn operator_token_valid_wrong_stale_and_never_local() {
    let s = start();
    let r = s.post(
        "toy.echo",
        r#"{"name":"a"}"#,
        &[&format!("Authorization: Bearer {OPERATOR}")],
    );
    assert_eq!(r.json()["value"]["principal"], "operator");
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[]);
    assert_eq!(r.json()["value"]["principal"], "local");
    // A wrong or stale (earlier run's) token, or a malformed header, never falls back to local.
    for auth in [
        "Authorization: Bearer operator-token-012345678",
        "Authorization: Bearer operator-token-0123456789x",
        "Authorization: Bearer ",
        "Authorization: Basic b3BlcmF0b3I6eA==",
        "Authorization: Bearer expired-agent",
    ] {
        let r = s.post("toy.echo", r#"{"name":"a"}"#, &[auth]);
        assert_eq!((r.status, r.code()), (401, "unauthorized".into()), "{auth}");
        assert!(!r.body.contains(OPERATOR), "{}", r.body);
    }
    // The operator may not open the browser's status page.
    let r = s.get("/status", &[&format!("Authorization: Bearer {OPERATOR}")]);
    assert_eq!(r.code(), "forbidden");
}

#[test]
fn agent_grant_reaches_only_its_methods_and_project() {
    let s = start();
    let auth = format!("Authorization: Bearer {AGENT}");
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[&auth]);
    assert_eq!(r.json()["value"]["principal"], "agent:claude-1");
    let mine = json!({"projectId": s.agent_project}).to_string();
    assert_eq!(s.post("toy.project", &mine, &[&auth]).status, 200);
    let other = json!({"projectId": uuid::Uuid::new_v4()}).to_string();
    let r = s.post("toy.project", &other, &[&auth]);
    assert_eq!((r.status, r.code()), (404, "not_found".into()));
    // Not in the grant: forbidden; not allowed for agents by the contract: forbidden.
    let r = s.post("toy.fail", r#"{"kind":"x"}"#, &[&auth]);
    assert_eq!((r.status, r.code()), (403, "forbidden".into()));
    let r = s.post("toy.person", "{}", &[&auth]);
    assert_eq!((r.status, r.code()), (403, "forbidden".into()));
}

#[test]
fn service_uid_mismatch_is_unauthorized_without_credentials() {
    let s = start_with(|c| c.service_uid = Some(own_uid().wrapping_add(1)));
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[]);
    assert_eq!((r.status, r.code()), (401, "unauthorized".into()));
    assert_eq!(s.get("/status", &[]).status, 401);
    let r = s.post(
        "toy.echo",
        r#"{"name":"a"}"#,
        &[&format!("Authorization: Bearer {OPERATOR}")],
    );
    assert_eq!(r.status, 200);
}

#[test]
fn another_os_user_is_refused() {
    if own_uid() != 0 {
        assert!(
            std::env::var_os("RHO_SKIP_OTHER_USER").is_some(),
            "this test needs root to create a throwaway user; run as root (CI does) or set RHO_SKIP_OTHER_USER=1 to skip it explicitly"
        );
        eprintln!("another_os_user_is_refused: SKIPPED (RHO_SKIP_OTHER_USER set, not root)");
        return;
    }
    let user = "rho-test-other";
    let exists = std::process::Command::new("id")
        .arg("-u")
        .arg(user)
        .output()
        .unwrap();
    if !exists.status.success() {
        let made = std::process::Command::new("useradd")
            .args(["-M", "-r", "-s", "/usr/sbin/nologin", user])
            .status()
            .unwrap();
        let again = std::process::Command::new("id")
            .arg("-u")
            .arg(user)
            .output()
            .unwrap();
        assert!(
            made.success() || again.status.success(),
            "useradd {user} failed"
        );
    }
    let s = start();
    let script = format!(
        "exec 3<>/dev/tcp/127.0.0.1/{p}; printf 'POST /api/v2/toy.echo HTTP/1.1\\r\\nHost: 127.0.0.1:{p}\\r\\nContent-Length: 12\\r\\nConnection: close\\r\\n\\r\\n{{\"name\":\"a\"}}' >&3; cat <&3",
        p = s.port
    );
    let out = std::process::Command::new("runuser")
        .args(["-u", user, "--", "/bin/bash", "-c", &script])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "runuser: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r = parse_response(&out.stdout);
    assert_eq!((r.status, r.code()), (401, "unauthorized".into()), "{r:?}");
    // The same request as the service's own user is local.
    let r = s.post("toy.echo", r#"{"name":"a"}"#, &[]);
    assert_eq!(r.json()["value"]["principal"], "local");
}
