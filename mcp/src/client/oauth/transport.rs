//! The transport of an OAuth server: stored credentials loaded (bounded), then rmcp's
//! `AuthClient` over Bearer presentation, or over DPoP when the stored token is a DPoP one
//! and its key is at hand.

use rmcp::transport::auth::AuthClient;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransport;

use super::dpop_http;
use super::error::{bounded, no_redirect_client, OAuthError, DISCOVERY_BOUND};
use super::manager::{dpop_manager, manager, stored};
use super::options::OAuthOptions;
use crate::client::config::HttpConfig;

/// The transport of an OAuth server: Bearer, or DPoP when this run holds the key its token
/// is bound to.
pub(crate) enum OAuthTransport {
    /// `Authorization: Bearer`.
    Bearer(StreamableHttpClientTransport<AuthClient<reqwest::Client>>),
    /// `Authorization: DPoP` with a proof per request.
    Dpop(StreamableHttpClientTransport<AuthClient<dpop_http::DpopHttp>>),
}

/// The transport for an OAuth server: stored credentials loaded (bounded), tokens attached
/// and refreshed by rmcp's `AuthClient`.
pub(crate) async fn transport(
    http: &HttpConfig,
    server_id: &str,
    opts: &OAuthOptions,
) -> Result<OAuthTransport, OAuthError> {
    let binding = if stored_token_is_dpop(server_id, opts).await? {
        opts.dpop_keys.get(server_id, opts.store.as_deref())?
    } else {
        None
    };
    let mut m = match &binding {
        Some((key, te)) => dpop_manager(http, server_id, opts, key.clone(), te).await?,
        None => manager(http, server_id, opts).await?,
    };
    bounded("loading stored credentials", DISCOVERY_BOUND, async {
        m.initialize_from_store().await.map_err(OAuthError::from)
    })
    .await?;
    let config = crate::client::http::transport_config(http)?;
    Ok(match binding {
        Some((key, _)) => OAuthTransport::Dpop(StreamableHttpClientTransport::with_client(
            AuthClient::new(
                dpop_http::DpopHttp {
                    inner: no_redirect_client()?,
                    key,
                },
                m,
            ),
            config,
        )),
        None => OAuthTransport::Bearer(StreamableHttpClientTransport::with_client(
            AuthClient::new(no_redirect_client()?, m),
            config,
        )),
    })
}

/// Whether the server's stored token is DPoP-bound (`token_type` DPoP). A server that no
/// longer asks for DPoP gets Bearer tokens again, and they are presented as such.
async fn stored_token_is_dpop(server_id: &str, opts: &OAuthOptions) -> Result<bool, OAuthError> {
    Ok(stored(server_id, opts)
        .await?
        .and_then(|c| c.token_response)
        .is_some_and(|t| {
            use oauth2::TokenResponse;
            t.token_type().as_ref().eq_ignore_ascii_case("dpop")
        }))
}
