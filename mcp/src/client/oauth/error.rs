//! Why OAuth did not produce a usable token, the bounds every OAuth step runs under, and the
//! HTTP client OAuth requests go out on (redirects never followed).

use std::time::Duration;

use rmcp::transport::auth::AuthError;

use crate::client::http::HttpSetupError;

/// Discovery, and loading stored credentials, are each bounded at 60 s.
pub const DISCOVERY_BOUND: Duration = Duration::from_secs(60);
/// The browser login is bounded at 5 minutes by default (`OAuthOptions::login_bound`).
pub const LOGIN_BOUND: Duration = Duration::from_secs(300);
/// Authorization rounds (first login plus scope step-ups) per start or call.
pub const MAX_AUTH_ROUNDS: usize = 3;

/// Why OAuth did not produce a usable token.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// No stored token and this run may not authorize.
    #[error(
        "MCP server `{0}` needs OAuth authorization: start Rho interactively once to authorize it (`rho mcp login {0}` in a terminal)"
    )]
    NeedsAuthorization(String),
    /// The server's metadata breaks a rule Rho holds to.
    #[error("OAuth refused: {0}")]
    Refused(String),
    /// The authorization machinery failed.
    #[error("OAuth failed: {0}")]
    Auth(String),
    /// A bound ran out.
    #[error("OAuth {0} did not finish within {1}s")]
    Timeout(&'static str, u64),
    /// `client_secret_from_env` names an unset variable.
    #[error(transparent)]
    Env(#[from] crate::client::env::MissingEnv),
    /// An endpoint is not HTTPS (and not loopback).
    #[error(transparent)]
    Endpoint(#[from] HttpSetupError),
}

impl From<AuthError> for OAuthError {
    fn from(e: AuthError) -> Self {
        OAuthError::Auth(e.to_string())
    }
}

/// `f`, or `OAuthError::Timeout(what, ..)` when it does not finish within `limit`.
pub(super) async fn bounded<T>(
    what: &'static str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, OAuthError>>,
) -> Result<T, OAuthError> {
    tokio::time::timeout(limit, f)
        .await
        .unwrap_or(Err(OAuthError::Timeout(what, limit.as_secs())))
}

/// The HTTP client of OAuth requests: a redirect is never followed.
pub(super) fn no_redirect_client() -> Result<reqwest::Client, OAuthError> {
    crate::client::http::ensure_tls();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| OAuthError::Auth(e.to_string()))
}
