//! `GET /api/v2/projects/{projectId}/resources/{id}/{version}` (issue 14, gap 2): a version's bytes with type, ETag,
//! one Range, nosniff and a sandboxing CSP, for the local browser; an Agent, another project or a forged cookie get nothing.

use crate::support::{http_raw, Env, PDF_400X200 as PDF};
use serde_json::{json, Value};

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

#[test]
fn a_version_is_served_as_bytes_with_its_headers_and_one_range() {
    let env = Env::start(&[], None, "b");
    let r = env.put("fig.pdf", PDF, json!({"media": {"format": "pdf"}}));
    let (id, version) = (r["id"].as_str().unwrap(), r["version"].as_u64().unwrap());
    let path = format!("/api/v2/projects/{}/resources/{id}/{version}", env.project);
    let port = env.service.port();
    let get = |headers: &[(&str, &str)]| http_raw(port, "GET", &path, None, headers, "");

    let (status, head, body) = get(&[]);
    assert_eq!(status, 200, "{head}");
    assert_eq!(body, PDF);
    assert_eq!(header(&head, "content-type"), Some("application/pdf"));
    assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"));
    assert_eq!(
        header(&head, "content-security-policy"),
        Some("sandbox; default-src 'none'")
    );
    assert_eq!(header(&head, "accept-ranges"), Some("bytes"));
    let etag = header(&head, "etag").unwrap().to_string();
    assert_eq!(etag, format!("\"{}\"", crate::support::sha256_hex(PDF)));

    let (status, _, body) = get(&[("If-None-Match", &etag)]);
    assert_eq!((status, body.len()), (304, 0));
    let (status, head, body) = get(&[("Range", "bytes=0-3")]);
    assert_eq!((status, body.as_slice()), (206, &b"%PDF"[..]), "{head}");
    assert_eq!(
        header(&head, "content-range"),
        Some(format!("bytes 0-3/{}", PDF.len()).as_str())
    );
    let (status, head, _) = get(&[("Range", "bytes=100000-")]);
    assert_eq!(status, 416, "{head}");
    assert_eq!(
        header(&head, "content-range"),
        Some(format!("bytes */{}", PDF.len()).as_str())
    );

    // Unknown version, resource or project: not_found, in the envelope.
    for bad in [
        format!(
            "/api/v2/projects/{}/resources/{id}/{}",
            env.project,
            version + 1
        ),
        format!("/api/v2/projects/{}/resources/nope/1", env.project),
        format!(
            "/api/v2/projects/{}/resources/{id}/{version}",
            uuid::Uuid::new_v4()
        ),
    ] {
        let (status, _, body) = http_raw(port, "GET", &bad, None, &[], "");
        assert_eq!(status, 404, "{bad}");
        let v: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"]["code"], "not_found");
    }
    // A forged pairing cookie is unauthorized; another site is refused; an Agent uses resource.read.
    assert_eq!(get(&[("Cookie", "rho_pair=forged")]).0, 401);
    assert_eq!(get(&[("Sec-Fetch-Site", "cross-site")]).0, 403);
    env.grant("reader", None);
    let token = env.token("reader");
    assert_eq!(http_raw(port, "GET", &path, Some(&token), &[], "").0, 403);
    // The file changed behind Rho's back (not captured): stale, never the new bytes.
    std::fs::write(env.dir.join("fig.pdf"), b"%PDF-1.3 changed").unwrap();
    let (status, _, body) = get(&[]);
    assert_eq!(status, 409, "{}", String::from_utf8_lossy(&body));
}
