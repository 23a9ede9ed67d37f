//! A stored OAuth token is reused by `rho mcp list --connect` (which never authorizes), and
//! neither the token nor anything derived from it reaches stdout or stderr.

use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::util::run_cli_home;

const TOKEN: &str = "stored-access-token-7f3c";

/// A loopback resource server + authorization server metadata that rejects every MCP request
/// with a 401 challenge, recording the Authorization headers it saw.
async fn protected_server(seen: Arc<Mutex<Vec<String>>>) -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let seen = seen.clone();
            tokio::spawn(async move {
                let mut buf = vec![0u8; 16384];
                let n = s.read(&mut buf).await.unwrap_or(0);
                let req = String::from_utf8_lossy(&buf[..n]).into_owned();
                let path = req.split_whitespace().nth(1).unwrap_or("").to_owned();
                for line in req.lines() {
                    if let Some(v) = line
                        .strip_prefix("authorization: ")
                        .or_else(|| line.strip_prefix("Authorization: "))
                    {
                        seen.lock().unwrap().push(v.to_owned());
                    }
                }
                let base = format!("http://127.0.0.1:{port}");
                let (status, extra, body) = if path
                    .starts_with("/.well-known/oauth-protected-resource")
                {
                    (
                        "200 OK",
                        String::new(),
                        format!(
                            r#"{{"resource":"{base}/mcp","authorization_servers":["{base}"]}}"#
                        ),
                    )
                } else if path.starts_with("/.well-known/oauth-authorization-server")
                    || path.starts_with("/.well-known/openid-configuration")
                {
                    (
                        "200 OK",
                        String::new(),
                        format!(
                            r#"{{"issuer":"{base}","authorization_endpoint":"{base}/authorize","token_endpoint":"{base}/token","response_types_supported":["code"],"code_challenge_methods_supported":["S256"]}}"#
                        ),
                    )
                } else {
                    (
                        "401 Unauthorized",
                        format!("WWW-Authenticate: Bearer error=\"invalid_token\", resource_metadata=\"{base}/.well-known/oauth-protected-resource/mcp\"\r\n"),
                        String::new(),
                    )
                };
                let reply = format!(
                    "HTTP/1.1 {status}\r\n{extra}Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = s.write_all(reply.as_bytes()).await;
            });
        }
    });
    port
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stored_token_is_sent_and_never_printed() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let port = protected_server(seen.clone()).await;
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(home.path().join("state")).unwrap();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let store = serde_json::json!({
        "remote": {
            "client_id": "client-1",
            "token_response": {"access_token": TOKEN, "token_type": "bearer", "expires_in": 3600},
            "granted_scopes": [],
            "token_received_at": now,
            "issuer": format!("http://127.0.0.1:{port}")
        }
    });
    std::fs::write(
        home.path().join("state/mcp-credentials.json"),
        serde_json::to_vec(&store).unwrap(),
    )
    .unwrap();
    std::fs::write(
        home.path().join("config.toml"),
        format!("[mcp.servers.remote]\ntransport = \"streamable_http\"\nurl = \"http://127.0.0.1:{port}/mcp\"\n[mcp.servers.remote.oauth]\n"),
    )
    .unwrap();
    let home_path = home.path().to_owned();
    let run = tokio::task::spawn_blocking(move || {
        run_cli_home(None, &home_path, &["list", "--connect", "--json"])
    })
    .await
    .unwrap();
    assert_eq!(run.code, ExitCode::SUCCESS, "{}", run.stderr);
    let sent = seen.lock().unwrap().clone();
    assert!(
        sent.iter().any(|h| h == &format!("Bearer {TOKEN}")),
        "the stored token was reused: {sent:?}"
    );
    assert!(!run.stdout.contains(TOKEN) && !run.stderr.contains(TOKEN));
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["servers"][0]["status"], "failed");
    let error = v["servers"][0]["error"].as_str().unwrap();
    assert!(error.contains("start Rho interactively once"), "{error}");
}
