//! Getting the authorization callback: a loopback listener answering one exact path with the
//! CSRF state within the run's login bound (the desktop's browser opened only with a terminal
//! and not in CI, or the run's own opener), or, for the conformance mode only, fetching the
//! authorization URL without following redirects.

use std::ffi::OsString;
use std::io::IsTerminal;
use std::path::Path;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use super::error::{bounded, no_redirect_client, OAuthError};

const CALLBACK_PATH: &str = "/callback";

/// `$BROWSER` (one program) where the person set it, else the desktop's opener; only with
/// an interactive terminal outside CI.
fn desktop_opener() -> Result<OsString, OAuthError> {
    if !std::io::stdin().is_terminal() || std::env::var_os("CI").is_some() {
        return Err(OAuthError::Auth(
            "a browser login needs an interactive terminal outside CI".to_owned(),
        ));
    }
    Ok(std::env::var_os("BROWSER")
        .filter(|b| !b.is_empty())
        .unwrap_or_else(|| "xdg-open".into()))
}

/// A loopback listener on an ephemeral port.
#[derive(Debug)]
pub(super) struct Listener {
    listener: TcpListener,
    port: u16,
}

fn state_of(url: &str) -> Option<String> {
    url::Url::parse(url)
        .ok()?
        .query_pairs()
        .find(|(k, _)| k == "state")
        .map(|(_, v)| v.into_owned())
}

impl Listener {
    pub(super) async fn bind() -> Result<Self, OAuthError> {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| OAuthError::Auth(format!("cannot open the loopback callback: {e}")))?;
        let port = listener
            .local_addr()
            .map_err(|e| OAuthError::Auth(e.to_string()))?
            .port();
        Ok(Self { listener, port })
    }

    pub(super) fn redirect_uri(&self) -> String {
        format!("http://127.0.0.1:{}{CALLBACK_PATH}", self.port)
    }

    /// The browser login: opens the authorization URL (with `opener`, else the desktop's
    /// browser, which needs a terminal outside CI) and waits, at most `bound`, for the one
    /// callback that carries the expected state; anything else gets a 404 and is ignored.
    /// When the bound passes the listener is dropped, so its port closes.
    pub(super) async fn login(
        self,
        auth_url: &str,
        opener: Option<&Path>,
        bound: Duration,
    ) -> Result<String, OAuthError> {
        let expected = state_of(auth_url)
            .ok_or_else(|| OAuthError::Auth("authorization URL has no state".to_owned()))?;
        let program = match opener {
            Some(program) => program.as_os_str().to_owned(),
            None => desktop_opener()?,
        };
        tracing::info!(target: "rho::mcp", "opening the browser for MCP authorization");
        let _ = std::process::Command::new(program)
            .arg(auth_url)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn();
        bounded("browser login", bound, self.wait(&expected)).await
    }

    /// Serves the loopback port until the callback with `expected` state arrives.
    pub(super) async fn wait(self, expected: &str) -> Result<String, OAuthError> {
        loop {
            let (mut sock, _) = self
                .listener
                .accept()
                .await
                .map_err(|e| OAuthError::Auth(e.to_string()))?;
            let mut buf = vec![0u8; 8192];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let head = String::from_utf8_lossy(&buf[..n]).into_owned();
            let target = head
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("GET "))
                .and_then(|l| l.split(' ').next())
                .unwrap_or("");
            let full = format!("http://127.0.0.1:{}{target}", self.port);
            let ok = target.split('?').next() == Some(CALLBACK_PATH)
                && state_of(&full).as_deref() == Some(expected);
            let body = if ok {
                "Rho is authorized. You can close this tab."
            } else {
                "Not found."
            };
            let status = if ok { "200 OK" } else { "404 Not Found" };
            let reply = format!(
                "HTTP/1.1 {status}\r\nContent-Type: text/plain\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(reply.as_bytes()).await;
            if ok {
                return Ok(full);
            }
        }
    }
}

/// Conformance mode only: GET the authorization URL without following redirects and take
/// the callback from `Location`.
pub(super) async fn headless(auth_url: &str) -> Result<String, OAuthError> {
    let client = no_redirect_client()?;
    let resp = client
        .get(auth_url)
        .send()
        .await
        .map_err(|e| OAuthError::Auth(format!("authorization request failed: {e}")))?;
    if !resp.status().is_redirection() {
        return Err(OAuthError::Auth(format!(
            "the authorization endpoint answered {} instead of redirecting",
            resp.status()
        )));
    }
    let location = resp
        .headers()
        .get(reqwest::header::LOCATION)
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| OAuthError::Auth("redirect without Location".to_owned()))?;
    let base = url::Url::parse(auth_url).map_err(|e| OAuthError::Auth(e.to_string()))?;
    base.join(location)
        .map(|u| u.to_string())
        .map_err(|e| OAuthError::Auth(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn get(port: u16, target: &str) -> String {
        let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .unwrap();
        s.write_all(format!("GET {target} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        let mut out = String::new();
        let _ = s.read_to_string(&mut out).await;
        out
    }

    #[tokio::test]
    async fn listener_answers_only_the_exact_path_with_the_state() {
        let l = Listener::bind().await.unwrap();
        let port = l.port;
        assert_eq!(
            l.redirect_uri(),
            format!("http://127.0.0.1:{port}/callback")
        );
        assert_eq!(
            state_of("https://as/authorize?a=1&state=xyz").as_deref(),
            Some("xyz")
        );
        let waiter = tokio::spawn(l.wait("xyz"));
        assert!(get(port, "/callback?code=c&state=wrong")
            .await
            .contains("404"));
        assert!(get(port, "/other?code=c&state=xyz").await.contains("404"));
        assert!(get(port, "/callback?code=c").await.contains("404"));
        assert!(get(port, "/callback?code=c&state=xyz")
            .await
            .contains("200 OK"));
        let url = waiter.await.unwrap().unwrap();
        assert_eq!(
            url,
            format!("http://127.0.0.1:{port}/callback?code=c&state=xyz")
        );
    }
}
