//! What a run allows OAuth to do: how a new authorization may be obtained, where tokens are
//! kept (the credential file, or the run's in-memory stores), and the secrets and DPoP keys
//! handed over at run time.

use std::path::PathBuf;
use std::time::Duration;

use rmcp::transport::auth::InMemoryCredentialStore;

use super::dpop_keys::DpopKeys;
use super::error::LOGIN_BOUND;

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
#[derive(Debug, Clone)]
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
    /// How long a browser login may take before it gives up, closing its loopback callback
    /// (default `LOGIN_BOUND`, the seed's 5 minutes).
    pub login_bound: Duration,
    /// The program a browser login opens the authorization URL with, for a host that has
    /// its own way to show it; none: `$BROWSER`, else `xdg-open`, and only from an
    /// interactive terminal outside CI.
    pub opener: Option<PathBuf>,
}

impl Default for OAuthOptions {
    fn default() -> Self {
        Self {
            store: None,
            memory: MemoryStores::default(),
            authorizer: Authorizer::default(),
            client_secret: None,
            private_key_pem: None,
            id_token: None,
            assertion: None,
            dpop_keys: DpopKeys::default(),
            login_bound: LOGIN_BOUND,
            opener: None,
        }
    }
}

/// Per-server in-memory credential stores shared by every connection of a run.
#[derive(Debug, Clone, Default)]
pub struct MemoryStores(
    std::sync::Arc<std::sync::Mutex<std::collections::HashMap<String, InMemoryCredentialStore>>>,
);

impl MemoryStores {
    pub(super) fn get(&self, server: &str) -> InMemoryCredentialStore {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(server.to_owned())
            .or_default()
            .clone()
    }
}
