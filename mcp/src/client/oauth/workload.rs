//! Workload identity federation (SEP-1933): the workload's own identity JWT, issued by its
//! platform, is redeemed at the authorization server with the JWT-bearer grant (RFC 7523).
//! A refusal is reported as it came, never retried with the same or another grant.

use rmcp::transport::auth::AuthorizationMetadata;
use serde_json::Value;

use super::error::{no_redirect_client, OAuthError};
use super::token::post_token;

/// The RFC 7523 authorization grant type.
pub(super) const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";

/// One JWT-bearer token request: the assertion, the resource indicator (RFC 8707), the
/// scopes when any are known, the client id when one is configured (a public client).
pub(super) async fn jwt_bearer(
    md: &AuthorizationMetadata,
    client_id: &str,
    assertion: &Option<String>,
    scopes: &[String],
    resource: &str,
) -> Result<Value, OAuthError> {
    let assertion = assertion.as_deref().ok_or_else(|| {
        OAuthError::Refused("grant \"workload_identity\" needs the workload's JWT".to_owned())
    })?;
    if let Some(grants) = md.additional_fields.get("grant_types_supported") {
        let listed = grants
            .as_array()
            .is_some_and(|g| g.iter().any(|v| v.as_str() == Some(JWT_BEARER)));
        if !listed {
            return Err(OAuthError::Refused(
                "the authorization server does not list the JWT-bearer grant".to_owned(),
            ));
        }
    }
    let scope = scopes.join(" ");
    let mut pairs = vec![
        ("grant_type", JWT_BEARER),
        ("assertion", assertion),
        ("resource", resource),
    ];
    if !scope.is_empty() {
        pairs.push(("scope", &scope));
    }
    if !client_id.is_empty() {
        pairs.push(("client_id", client_id));
    }
    let client = no_redirect_client()?;
    post_token(
        client.post(&md.token_endpoint),
        &pairs,
        "the workload identity assertion",
    )
    .await
}
