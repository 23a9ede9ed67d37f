//! The browser login is bounded: a login whose browser never comes back gives up at the run's
//! bound with an error naming it, closes its loopback callback port and stores no token
//! (against the loopback authorization server fixture `mcp/tests/fixtures/oauth_as.py`).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rho_mcp::config::parse_config;
use rho_mcp::oauth::Authorizer;
use rho_mcp::runtime::{McpRuntime, Slot, StartOptions};

use crate::peers::{fixture, python, q};

/// The fixture (killed when dropped) and its MCP URL.
struct AuthServer {
    child: std::process::Child,
    url: String,
}

impl AuthServer {
    /// Starts the fixture and reads its port from a FIFO in place of its temporary port file:
    /// the read returns when the fixture is listening.
    fn start(dir: &Path) -> AuthServer {
        let port_file = dir.join("as.port");
        let fifo = dir.join("as.port.tmp");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success(), "mkfifo");
        let child = std::process::Command::new(python())
            .arg(fixture("oauth_as.py"))
            .arg(&port_file)
            .arg(dir.join("as.events"))
            .arg("60")
            .spawn()
            .unwrap();
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(std::fs::read_to_string(&fifo)));
        let mut server = AuthServer {
            child,
            url: String::new(),
        };
        let port = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the fixture listens within 30 s")
            .unwrap();
        server.url = format!("http://127.0.0.1:{}/mcp", port.trim());
        server
    }
}

impl Drop for AuthServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A "browser" that writes down the URL it was asked to open and never visits it.
fn absent_browser(dir: &Path) -> (PathBuf, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let (script, seen) = (dir.join("browser.sh"), dir.join("browser.url"));
    std::fs::write(
        &script,
        format!("#!/bin/sh\nprintf '%s' \"$1\" > {}\n", q(&seen)),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    (script, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_login_nobody_finishes_gives_up_at_the_bound_and_leaves_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let server = AuthServer::start(dir.path());
    let (browser, seen) = absent_browser(dir.path());
    let cfg = parse_config(
        &format!(
            "[mcp.servers.remote]\ntransport = \"streamable_http\"\nurl = \"{}\"\n[mcp.servers.remote.oauth]\n",
            server.url
        ),
        "t".as_ref(),
    )
    .unwrap();
    let credentials = dir.path().join("state/mcp-credentials.json");
    let bound = Duration::from_secs(2);
    let mut opts = StartOptions::default();
    opts.connect.oauth.store = Some(credentials.clone());
    opts.connect.oauth.authorizer = Authorizer::Browser;
    opts.connect.oauth.opener = Some(browser);
    opts.connect.oauth.login_bound = bound;
    let started = Instant::now();
    let rt = McpRuntime::start(&cfg, opts).await.unwrap();
    let elapsed = started.elapsed();
    let Slot::Failed { error, .. } = &rt.slots()[0] else {
        panic!("a login nobody finished must fail: {:?}", rt.slots()[0])
    };
    assert!(
        error.contains("browser login did not finish within 2s"),
        "{error}"
    );
    assert!(
        elapsed >= bound,
        "gave up after {elapsed:?}, before the bound"
    );
    assert!(elapsed < bound + Duration::from_secs(20), "{elapsed:?}");
    // The browser was asked to open the authorization URL, whose redirect names the loopback
    // callback: that port is closed now.
    let url = url::Url::parse(&std::fs::read_to_string(&seen).unwrap()).unwrap();
    let redirect = url
        .query_pairs()
        .find(|(k, _)| k == "redirect_uri")
        .map(|(_, v)| url::Url::parse(&v).unwrap())
        .unwrap();
    assert_eq!(redirect.host_str(), Some("127.0.0.1"), "{redirect}");
    let port = redirect.port().unwrap();
    let refused = tokio::net::TcpStream::connect(("127.0.0.1", port)).await;
    assert!(refused.is_err(), "the callback port {port} is still open");
    // No token was stored (a registration may be, without a token).
    let stored = std::fs::read_to_string(&credentials).unwrap_or_default();
    let entry: serde_json::Value = serde_json::from_str(&stored).unwrap_or_default();
    assert!(
        entry["remote"]["token_response"].is_null(),
        "a token was stored: {stored}"
    );
    rt.shutdown().await;
}
