//! The authorization manager of a server (Rho's no-redirect client, the run's credential
//! store; or, for a DPoP-bound token, token requests carrying proofs of the server's key),
//! the stored credentials it reads, and discovery of the authorization server's metadata.

use std::sync::Arc;

use rmcp::transport::auth::{
    AuthorizationManager, AuthorizationMetadata, AuthorizationMetadataSource, CredentialStore,
    StoredCredentials,
};

use super::dpop::{DpopKey, DpopOAuthHttp};
use super::error::{bounded, no_redirect_client, OAuthError, DISCOVERY_BOUND};
use super::options::OAuthOptions;
use super::store::FileCredentialStore;
use crate::client::config::HttpConfig;
use crate::client::http::{check_endpoint, is_loopback};

/// The manager of `server_id`: loopback servers may have private addresses, redirects are
/// never followed, tokens live in the run's store.
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

/// A manager whose token requests (code exchange, refresh) carry DPoP proofs of `key`.
/// Its other OAuth requests go through rmcp's default client (endpoints already checked).
pub(super) async fn dpop_manager(
    http: &HttpConfig,
    server_id: &str,
    opts: &OAuthOptions,
    key: Arc<DpopKey>,
    token_endpoint: &str,
) -> Result<AuthorizationManager, OAuthError> {
    let url = check_endpoint(&http.url)?;
    crate::client::http::ensure_tls();
    let client = DpopOAuthHttp {
        inner: Arc::new(rmcp::transport::auth::default_oauth_http_client()?),
        key,
        token_endpoint: token_endpoint.to_owned(),
        http: no_redirect_client()?,
    };
    let mut m =
        AuthorizationManager::new_with_oauth_http_client(url.as_str(), Arc::new(client)).await?;
    set_store(&mut m, server_id, opts);
    Ok(m)
}

fn set_store(m: &mut AuthorizationManager, server_id: &str, opts: &OAuthOptions) {
    match &opts.store {
        Some(path) => m.set_credential_store(FileCredentialStore::new(path.clone(), server_id)),
        None => m.set_credential_store(opts.memory.get(server_id)),
    }
}

/// The server's stored credentials in the run's store (file or memory).
pub(super) async fn stored(
    server_id: &str,
    opts: &OAuthOptions,
) -> Result<Option<StoredCredentials>, OAuthError> {
    Ok(match &opts.store {
        Some(path) => {
            FileCredentialStore::new(path.clone(), server_id)
                .load()
                .await?
        }
        None => opts.memory.get(server_id).load().await?,
    })
}

/// Saves the server's credentials in the run's store (file or memory).
pub(super) async fn save(
    server_id: &str,
    opts: &OAuthOptions,
    credentials: StoredCredentials,
) -> Result<(), OAuthError> {
    match &opts.store {
        Some(path) => {
            FileCredentialStore::new(path.clone(), server_id)
                .save(credentials)
                .await?
        }
        None => opts.memory.get(server_id).save(credentials).await?,
    }
    Ok(())
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
