//! The browser app (issue 14): `rho` serves the committed bundle with its headers, `/status` says who a tab is,
//! and the app works end to end in Debian's Chromium (typing, an IME composition, a live Agent edit, shared undo,
//! save and its conflict, axe, 390 px, the access screen).

use crate::support::{browser, http_raw, Env};
use serde_json::Value;
use std::path::Path;

const SCRIPT: &str = "# Fits response ~ dose.\nd <- read.csv(\"data.csv\")\r\nfit <- lm(response ~ dose, data = d) # \u{1F600}\nprint(summary(fit))\n";

fn header<'a>(head: &'a str, name: &str) -> Option<&'a str> {
    head.lines().find_map(|l| {
        let (k, v) = l.split_once(':')?;
        k.trim().eq_ignore_ascii_case(name).then(|| v.trim())
    })
}

fn get(env: &Env, path: &str, extra: &[(&str, &str)]) -> (u16, String, Vec<u8>) {
    http_raw(env.service.port(), "GET", path, None, extra, "")
}

#[test]
fn the_app_is_served_with_its_headers_and_the_status_page_moved() {
    let env = Env::start(&[], None, "p");
    let (status, head, body) = get(&env, "/", &[]);
    assert_eq!(status, 200, "{head}");
    assert!(header(&head, "content-type")
        .unwrap()
        .starts_with("text/html"));
    assert_eq!(header(&head, "cache-control"), Some("no-cache"));
    let csp = header(&head, "content-security-policy").unwrap();
    assert!(csp.contains("default-src 'self'") && csp.contains("frame-ancestors 'none'"));
    assert!(!csp.contains("unsafe-eval"), "{csp}");
    assert_eq!(header(&head, "x-frame-options"), Some("DENY"));
    let html = String::from_utf8_lossy(&body).to_string();
    assert!(html.contains("<div id=\"root\">"), "{html}");
    // The entry script the page names is served, immutable, with an ETag that revalidates.
    let start = html.find("/assets/").unwrap();
    let end = start + html[start..].find('"').unwrap();
    let asset = &html[start..end];
    let (status, head, js) = get(&env, asset, &[]);
    assert_eq!(status, 200, "{asset}: {head}");
    assert!(header(&head, "content-type")
        .unwrap()
        .starts_with("text/javascript"));
    assert_eq!(
        header(&head, "cache-control"),
        Some("public, max-age=31536000, immutable")
    );
    assert_eq!(header(&head, "x-content-type-options"), Some("nosniff"));
    let committed = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("ui/dist")
            .join(asset.trim_start_matches('/')),
    )
    .unwrap();
    assert_eq!(js, committed, "the served bytes are the committed build's");
    let etag = header(&head, "etag").unwrap().to_string();
    let (status, _, body) = get(&env, asset, &[("If-None-Match", &etag)]);
    assert_eq!((status, body.len()), (304, 0));
    // Unknown assets are not_found (never the page); the app's paths are the page.
    let (status, _, body) = get(&env, "/assets/nope-123.js", &[]);
    assert_eq!(status, 404);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["error"]["code"], "not_found");
    assert_eq!(get(&env, "/p/some/project", &[]).0, 200);
    // Another site may not fetch it; a request for another Host is refused.
    assert_eq!(get(&env, "/", &[("Sec-Fetch-Site", "cross-site")]).0, 403);
    // The status page lives at /status; as JSON it says who the tab is.
    let (status, _, body) = get(&env, "/status", &[]);
    assert_eq!(status, 200);
    assert!(String::from_utf8_lossy(&body).contains("The browser app is at"));
    let (status, _, body) = get(&env, "/status", &[("Accept", "application/json")]);
    assert_eq!(status, 200);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["value"]["kind"], "local");
    assert_eq!(v["value"]["principal"], "local");
    assert_eq!(v["value"]["folder"], Value::Null);
    // A bad pairing cookie is unauthorized (never local); the page still loads to say so.
    let bad = [
        ("Accept", "application/json"),
        ("Cookie", "rho_pair=forged"),
    ];
    let (status, _, body) = get(&env, "/status", &bad);
    assert_eq!(status, 401);
    let v: Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(v["error"]["code"], "unauthorized");
    assert_eq!(get(&env, "/", &[("Cookie", "rho_pair=forged")]).0, 200);
}

#[test]
fn the_app_in_chromium_types_shows_a_live_agent_edit_and_passes_axe() {
    let env = Env::start(&[], None, "p");
    std::fs::write(env.dir.join("analysis.R"), SCRIPT).unwrap();
    std::fs::write(env.dir.join("data.csv"), "dose,response\n0,1.2\n5,2.4\n").unwrap();
    let (code, _, stderr) = env.grant_cli(&["--project-id", &env.project]);
    assert_eq!(code, 0, "{stderr}");
    let token = env.token("claude-code");
    let artifacts = browser::artifacts("");
    let facts = browser::run_e2e(
        "e2e.mjs",
        &env,
        &token,
        &artifacts,
        &[("RHO_FILE", "analysis.R")],
    );
    assert_eq!(facts["facts"]["axe_1600"], 0);
    // The IME composition sent nothing while it was open, then the composed text once.
    assert_eq!(facts["facts"]["ime_sent_while_composing"], 0);
    assert_eq!(
        facts["facts"]["ime_edits"],
        serde_json::json!(["\u{65E5}\u{672C}"])
    );
    assert_eq!(facts["facts"]["axe_390"], 0);
    assert!(artifacts.join("app-390x844.png").exists());
    // What the person typed and the Agent wrote are both in the buffer, the emoji and CRLF intact.
    let (_, read) = env.agent_call(
        &token,
        "document.open",
        serde_json::json!({"path": "analysis.R"}),
    );
    let id = read["value"]["id"].as_str().unwrap().to_string();
    let (_, read) = env.agent_call(
        &token,
        "document.read",
        serde_json::json!({"documentId": id}),
    );
    let text = read["value"]["text"].as_str().unwrap();
    // The Agent's line was undone (shared undo) and the person's lines were saved to disk.
    assert!(text.starts_with("# Fits"), "{text}");
    assert!(text.contains("\r\nfit <- lm"), "{text}");
    assert!(
        text.ends_with(
            "\n# typed by the person \u{1F600} \u{65E5}\u{672C}\n# after the outside change"
        ),
        "{text}"
    );
    let disk = std::fs::read_to_string(env.dir.join("analysis.R")).unwrap();
    assert_eq!(
        disk, text,
        "the overwrite saved the buffer over the outside change"
    );
}
