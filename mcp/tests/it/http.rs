//! Streamable HTTP against `server-everything streamableHttp` on loopback.

use std::process::{Child, Command, Stdio};
use std::time::Duration;

use rho_mcp::call::CallContext;
use rho_mcp::config::parse_config;
use rho_mcp::runtime::{McpRuntime, Slot, StartOptions};
use serde_json::json;

use crate::peers::everything;

/// A loopback HTTP server process, killed on drop.
pub(crate) struct HttpPeer {
    child: Child,
    pub(crate) port: u16,
}

impl Drop for HttpPeer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `server-everything` over Streamable HTTP and waits for its port.
pub(crate) fn everything_http() -> HttpPeer {
    let port = free_port();
    let child = Command::new(everything())
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start server-everything over HTTP");
    let peer = HttpPeer { child, port };
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return peer;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("server-everything did not listen on {port}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn streamable_http_connects_and_calls() {
    let peer = everything_http();
    let text = format!(
        "[mcp.servers.web]\ntransport = \"streamable_http\"\nurl = \"http://127.0.0.1:{}/mcp\"\nheaders = {{ X-Tenant = \"t\" }}\n",
        peer.port
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let Slot::Live(live) = &rt.slots()[0] else {
        panic!("{:?}", rt.slots()[0])
    };
    assert_eq!(live.protocol_version, "2025-11-25");
    let out = rt
        .call(
            "mcp__web__echo",
            json!({"message": "over http"}).as_object().cloned(),
            CallContext::default(),
        )
        .await
        .unwrap();
    assert_eq!(out.text, "Echo: over http");
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http_rules_fail_only_that_server() {
    let text = r#"
[mcp.servers.plain]
transport = "streamable_http"
url = "http://mcp.example.com/mcp"
[mcp.servers.unset]
transport = "streamable_http"
url = "http://127.0.0.1:9/mcp"
headers_from_env = { Authorization = "RHO_TEST_SURELY_UNSET_VAR" }
"#;
    let cfg = parse_config(text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let err = |id: &str| {
        rt.slots()
            .iter()
            .find_map(|s| match s {
                Slot::Failed { config, error } if config.id == id => Some(error.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{id} should fail"))
    };
    assert!(err("plain").contains("must use https"), "{}", err("plain"));
    assert!(
        err("unset").contains("RHO_TEST_SURELY_UNSET_VAR"),
        "{}",
        err("unset")
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redirects_are_not_followed() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let target = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let target_port = target.local_addr().unwrap().port();
    let redirector = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = redirector.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = redirector.accept().await {
            let mut buf = vec![0u8; 8192];
            let _ = s.read(&mut buf).await;
            let reply = format!(
                "HTTP/1.1 307 Temporary Redirect\r\nLocation: http://127.0.0.1:{target_port}/mcp\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = s.write_all(reply.as_bytes()).await;
        }
    });
    let reached = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let r2 = reached.clone();
    tokio::spawn(async move {
        if target.accept().await.is_ok() {
            r2.store(true, std::sync::atomic::Ordering::SeqCst);
        }
    });
    let text = format!(
        "[mcp.servers.moved]\ntransport = \"streamable_http\"\nurl = \"http://127.0.0.1:{port}/mcp\"\nheaders = {{ X-Secret = \"s\" }}\n"
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    assert!(
        matches!(rt.slots()[0], Slot::Failed { .. }),
        "{:?}",
        rt.slots()[0]
    );
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        !reached.load(std::sync::atomic::Ordering::SeqCst),
        "the redirect was followed"
    );
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn legacy_http_servers_are_pinged_and_failures_shown() {
    let mut peer = everything_http();
    let text = format!(
        "[mcp.servers.web]\ntransport = \"streamable_http\"\nurl = \"http://127.0.0.1:{}/mcp\"\n",
        peer.port
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    let opts = StartOptions {
        ping_interval: Duration::from_millis(300),
        ..StartOptions::default()
    };
    let rt = McpRuntime::start(&cfg, opts).await.unwrap();
    let entry = cfg.entries[0].clone();
    let report = || rho_mcp::report::live_report(&entry, &rt.slots()[0], rt.registry());
    let mut pinged = false;
    for _ in 0..30 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if report().last_ping.is_some() {
            pinged = true;
            break;
        }
    }
    assert!(pinged, "a ping succeeded");
    let _ = peer.child.kill();
    let _ = peer.child.wait();
    let mut failed = None;
    for _ in 0..50 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        if let Some(e) = report().error {
            failed = Some(e);
            break;
        }
    }
    assert!(failed.unwrap_or_default().contains("ping failed"));
    rt.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oauth_server_without_a_stored_token_is_not_authorized_by_connect() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        while let Ok((mut s, _)) = listener.accept().await {
            let mut buf = vec![0u8; 8192];
            let _ = s.read(&mut buf).await;
            let reply = format!(
                "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer resource_metadata=\"http://127.0.0.1:{port}/.well-known/oauth-protected-resource/mcp\"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
            );
            let _ = s.write_all(reply.as_bytes()).await;
        }
    });
    let text = format!(
        "[mcp.servers.remote]\ntransport = \"streamable_http\"\nurl = \"http://127.0.0.1:{port}/mcp\"\n[mcp.servers.remote.oauth]\n"
    );
    let cfg = parse_config(&text, "t".as_ref()).unwrap();
    // The CLI's --connect and any run without a person use Authorizer::Never.
    let rt = McpRuntime::start(&cfg, StartOptions::default())
        .await
        .unwrap();
    let Slot::Failed { error, .. } = &rt.slots()[0] else {
        panic!("{:?}", rt.slots()[0])
    };
    assert!(error.contains("start Rho interactively once"), "{error}");
    rt.shutdown().await;
}
