//! OAuth 2.1 for Streamable HTTP servers (seed § OAuth) on rmcp's authorization manager:
//! the 401 challenge -> protected resource metadata -> authorization server metadata chain,
//! registration (pre-registered, CIMD, then dynamic), PKCE S256, resource indicator, `iss`
//! checks, the credential store, and the three ways a run may authorize (never, browser,
//! headless for the conformance mode only); DPoP where the authorization server asks for it.

mod dpop;
mod dpop_http;
mod dpop_keys;
mod login;
mod machine;
mod store;
mod transport;
mod workload;

use std::path::PathBuf;
use std::time::Duration;

use rmcp::transport::auth::{
    AuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource,
    AuthorizationRequest, AuthorizationSession, CredentialStore, InMemoryCredentialStore,
    WWWAuthenticateParams,
};

pub use dpop_keys::DpopKeys;
pub use store::FileCredentialStore;
pub(crate) use transport::{transport, OAuthTransport};

use crate::client::config::{HttpConfig, OAuthConfig};
use crate::client::http::{check_endpoint, is_loopback, HttpSetupError};

/// Discovery, and loading stored credentials, are each bounded at 60 s.
pub const DISCOVERY_BOUND: Duration = Duration::from_secs(60);
/// The browser login is bounded at 5 minutes.
pub const LOGIN_BOUND: Duration = Duration::from_secs(300);
/// Authorization rounds (first login plus scope step-ups) per start or call.
pub const MAX_AUTH_ROUNDS: usize = 3;

/// How this run may obtain a new authorization.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Authorizer {
    /// Never (e.g. `rho mcp list --connect`): a server without a stored token fails.
    #[default]
    Never,
    /// Open the browser with a loopback callback (a terminal, not CI).
    Browser,
    /// Fetch the authorization URL without following redirects (the conformance mode only).
    Headless,
}

impl Authorizer {
    /// What an interactive session of this process may use: the browser only with a
    /// terminal and not in CI; otherwise never (headless is for the conformance mode only).
    pub fn for_interactive_session() -> Self {
        use std::io::IsTerminal;
        if std::io::stdin().is_terminal() && std::env::var_os("CI").is_none() {
            Authorizer::Browser
        } else {
            Authorizer::Never
        }
    }
}

/// OAuth settings of a run.
#[derive(Debug, Clone, Default)]
pub struct OAuthOptions {
    /// The credential file (`<home>/state/mcp-credentials.json`); none keeps tokens in memory
    /// for this run only (shared by every connection of the run, per server).
    pub store: Option<PathBuf>,
    /// The run's in-memory stores when `store` is none.
    pub memory: MemoryStores,
    /// How a new authorization may be obtained.
    pub authorizer: Authorizer,
    /// A client secret supplied by the host at run time (conformance context), never config.
    pub client_secret: Option<String>,
    /// A `private_key_jwt` key (PKCS#8 PEM) supplied at run time (conformance context only).
    pub private_key_pem: Option<String>,
    /// An enterprise ID token supplied at run time (conformance context only).
    pub id_token: Option<String>,
    /// A workload identity JWT supplied at run time (conformance context only).
    pub assertion: Option<String>,
    /// The DPoP keys of this run, per server (made when an authorization server asks for
    /// DPoP; tokens bound to them are presented with proofs).
    pub dpop_keys: DpopKeys,
}

/// Per-server in-memory credential stores shared by every connection of a run.
#[derive(Debug, Clone, Default)]
pub struct MemoryStores(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, InMemoryCredentialStore>>>,
);

impl MemoryStores {
    fn get(&self, server: &str) -> InMemoryCredentialStore {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(server.to_owned())
            .or_default()
            .clone()
    }
}

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

pub(super) async fn bounded<T>(
    what: &'static str,
    limit: Duration,
    f: impl std::future::Future<Output = Result<T, OAuthError>>,
) -> Result<T, OAuthError> {
    tokio::time::timeout(limit, f)
        .await
        .unwrap_or(Err(OAuthError::Timeout(what, limit.as_secs())))
}

pub(super) fn no_redirect_client() -> Result<reqwest::Client, OAuthError> {
    crate::client::http::ensure_tls();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| OAuthError::Auth(e.to_string()))
}

/// The authorization server's metadata, discovered from `challenge` within the discovery
/// bound. A server that publishes none is refused: Rho never guesses authorization endpoints.
pub(super) async fn discover(
    m: &AuthorizationManager,
    challenge: &str,
) -> Result<AuthorizationMetadata, OAuthError> {
    let resolution = bounded("discovery", DISCOVERY_BOUND, async {
        m.resolve_metadata_from_challenge(Some(challenge))
            .await
            .map_err(OAuthError::from)
    })
    .await?;
    if resolution.source == AuthorizationMetadataSource::LegacyEndpointFallback {
        return Err(OAuthError::Refused(
            "the server publishes no authorization metadata, and Rho does not guess authorization endpoints".to_owned(),
        ));
    }
    Ok(resolution.metadata)
}

pub(super) async fn manager(
    http: &HttpConfig,
    server_id: &str,
    opts: &OAuthOptions,
) -> Result<AuthorizationManager, OAuthError> {
    let url = check_endpoint(&http.url)?;
    crate::client::http::ensure_tls();
    let mut m = if is_loopback(&url) {
        AuthorizationManager::new_allowing_private_addresses(url.as_str()).await?
    } else {
        AuthorizationManager::new(url.as_str()).await?
    };
    m.with_client(no_redirect_client()?)?;
    set_store(&mut m, server_id, opts);
    Ok(m)
}

pub(super) fn set_store(m: &mut AuthorizationManager, server_id: &str, opts: &OAuthOptions) {
    match &opts.store {
        Some(path) => m.set_credential_store(FileCredentialStore::new(path.clone(), server_id)),
        None => m.set_credential_store(opts.memory.get(server_id)),
    }
}

/// Authorizes after a 401 challenge; the tokens land in the credential store.
pub(crate) async fn authorize(
    http: &HttpConfig,
    oauth: &OAuthConfig,
    server_id: &str,
    opts: &OAuthOptions,
    challenge: &str,
) -> Result<(), OAuthError> {
    authorize_scoped(http, oauth, server_id, opts, challenge, None).await
}

/// Scope step-up after a 403 `insufficient_scope`: authorizes again for the union of the
/// scopes already granted and those the challenge names.
pub(crate) async fn step_up(
    http: &HttpConfig,
    oauth: &OAuthConfig,
    server_id: &str,
    opts: &OAuthOptions,
    challenge: &str,
) -> Result<(), OAuthError> {
    let base = url::Url::parse(&http.url).map_err(|e| OAuthError::Auth(e.to_string()))?;
    let params = WWWAuthenticateParams::parse(challenge, &base);
    let granted = match &opts.store {
        Some(path) => {
            FileCredentialStore::new(path.clone(), server_id)
                .load()
                .await?
        }
        None => opts.memory.get(server_id).load().await?,
    }
    .map(|c| c.granted_scopes)
    .unwrap_or_default();
    let mut scopes = granted;
    for s in params.scope.as_deref().unwrap_or("").split_whitespace() {
        if !scopes.iter().any(|x| x == s) {
            scopes.push(s.to_owned());
        }
    }
    let scopes = (!scopes.is_empty()).then_some(scopes);
    authorize_scoped(http, oauth, server_id, opts, challenge, scopes).await
}

async fn authorize_scoped(
    http: &HttpConfig,
    oauth: &OAuthConfig,
    server_id: &str,
    opts: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<(), OAuthError> {
    // Machine grants need no person: every run may use them, `--connect` included.
    if oauth.grant != crate::client::config::OAuthGrant::AuthorizationCode {
        return machine::authorize(http, oauth, server_id, opts, challenge, scopes).await;
    }
    if opts.authorizer == Authorizer::Never {
        return Err(OAuthError::NeedsAuthorization(server_id.to_owned()));
    }
    let mut m = manager(http, server_id, opts).await?;
    let metadata = discover(&m, challenge).await?;
    let md = &metadata;
    for endpoint in [
        Some(&md.authorization_endpoint),
        Some(&md.token_endpoint),
        md.registration_endpoint.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        check_endpoint(endpoint)?;
    }
    if let Some(methods) = &md.code_challenge_methods_supported {
        if !methods.iter().any(|m| m == "S256") {
            return Err(OAuthError::Refused(
                "the authorization server does not support PKCE S256".to_owned(),
            ));
        }
    }
    m.set_metadata(metadata.clone());
    if dpop::wanted(md) {
        // RFC 9449: a DPoP-bound token. Discovery again through the manager whose token
        // requests carry proofs (it must know the discovered resource for RFC 8707).
        let key =
            opts.dpop_keys
                .get_or_make(server_id, &md.token_endpoint, opts.store.as_deref())?;
        m = dpop_keys::dpop_manager(http, server_id, opts, key, &md.token_endpoint).await?;
        bounded("discovery", DISCOVERY_BOUND, async {
            m.resolve_metadata_from_challenge(Some(challenge))
                .await
                .map_err(OAuthError::from)
        })
        .await?;
        m.set_metadata(metadata.clone());
    }
    let listener = match opts.authorizer {
        Authorizer::Browser => Some(login::Listener::bind().await?),
        _ => None,
    };
    let redirect_uri = listener.as_ref().map_or_else(
        || "http://127.0.0.1/callback".to_owned(),
        login::Listener::redirect_uri,
    );
    let mut request = AuthorizationRequest::new(redirect_uri)
        .with_challenge(challenge)
        .with_client_name("Rho")
        .with_application_type("native");
    if let Some(id) = &oauth.client_id {
        request = request.with_preregistered_client(id.clone());
        let secret = match &oauth.client_secret_from_env {
            Some(var) => Some(
                std::env::var(var).map_err(|_| crate::client::env::MissingEnv {
                    key: "client_secret".to_owned(),
                    ambient: var.clone(),
                })?,
            ),
            None => opts.client_secret.clone(),
        };
        if let Some(secret) = secret {
            request = request.with_client_secret(secret);
        }
    }
    if let Some(url) = &oauth.client_metadata_url {
        request = request.with_client_metadata_url(url.clone());
    }
    request = match (scopes, &oauth.scopes) {
        (Some(s), _) => request.with_scopes(s),
        (None, Some(s)) => request.with_scopes(s.clone()),
        (None, None) => request.with_initial_scope_selection(),
    };
    let session = bounded("registration", DISCOVERY_BOUND, async {
        AuthorizationSession::new(m, request)
            .await
            .map_err(|(_, e)| OAuthError::from(e))
    })
    .await?;
    check_endpoint(&session.auth_url)?;
    let callback = match (opts.authorizer, listener) {
        (Authorizer::Browser, Some(listener)) => {
            bounded(
                "browser login",
                LOGIN_BOUND,
                listener.login(&session.auth_url),
            )
            .await?
        }
        _ => {
            bounded(
                "headless authorization",
                DISCOVERY_BOUND,
                login::headless(&session.auth_url),
            )
            .await?
        }
    };
    session.handle_callback_url(&callback).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn never_authorizer_asks_for_an_interactive_start() {
        let http = HttpConfig {
            url: "https://mcp.example.com/mcp".into(),
            headers: Default::default(),
            headers_from_env: Default::default(),
            oauth: Some(OAuthConfig::default()),
        };
        let err = authorize(
            &http,
            &OAuthConfig::default(),
            "remote",
            &OAuthOptions::default(),
            "Bearer",
        )
        .await
        .unwrap_err();
        assert!(
            err.to_string().contains("start Rho interactively once"),
            "{err}"
        );
    }
}
