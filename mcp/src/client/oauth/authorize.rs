//! Obtaining a new authorization after a 401 challenge or a 403 `insufficient_scope`: a
//! machine grant, or the authorization code flow with PKCE S256 (browser, or headless for the
//! conformance mode only), DPoP-bound where the authorization server asks for it.

use rmcp::transport::auth::{AuthorizationRequest, AuthorizationSession, WWWAuthenticateParams};

use super::error::{bounded, OAuthError, DISCOVERY_BOUND};
use super::manager::{discover, dpop_manager, manager, stored};
use super::options::{Authorizer, OAuthOptions};
use super::{dpop, login, machine};
use crate::client::config::{HttpConfig, OAuthConfig};
use crate::client::http::check_endpoint;

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
    let granted = stored(server_id, opts)
        .await?
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
        m = dpop_manager(http, server_id, opts, key, &md.token_endpoint).await?;
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
            listener
                .login(&session.auth_url, opts.opener.as_deref(), opts.login_bound)
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
