//! Machine grants, which need no person and no browser: OAuth client credentials (SEP-1046)
//! with `client_secret_basic` or `private_key_jwt` (ES256), and enterprise-managed
//! authorization (SEP-990): the person's enterprise ID token becomes an ID-JAG at the identity
//! provider (RFC 8693), which the server's authorization server redeems (RFC 7523); the
//! workload identity grant (SEP-1933) is in `workload.rs`.

use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::STANDARD;
use base64::Engine;
use oauth2::ClientSecret;
use rmcp::transport::auth::enterprise::{
    EmaAuthorizationServer, EmaClientAuthentication, EmaExchangeRequest,
};
use rmcp::transport::auth::{
    AuthorizationMetadata, OAuthTokenResponse, StoredCredentials, WWWAuthenticateParams,
};
use serde_json::{json, Value};

use super::dpop::{random_id, sign_es256};
use super::error::{bounded, no_redirect_client, OAuthError, DISCOVERY_BOUND};
use super::manager::{discover, manager, save};
use super::options::OAuthOptions;
use super::token::post_token;
use super::workload::jwt_bearer;
use crate::client::config::{HttpConfig, OAuthConfig, OAuthGrant};
use crate::client::http::check_endpoint;

const CLIENT_CREDENTIALS: &str = "client_credentials";
const JWT_ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
/// Lifetime of a `private_key_jwt` client assertion.
const ASSERTION_SECONDS: u64 = 300;

/// Secrets a machine grant may use, from the environment the configuration names (or, in the
/// conformance mode only, handed over by the suite). Never logged, never stored.
struct Secrets {
    client_secret: Option<String>,
    private_key_pem: Option<String>,
    id_token: Option<String>,
    assertion: Option<String>,
}

fn from_env(var: &Option<String>, key: &str) -> Result<Option<String>, OAuthError> {
    var.as_ref()
        .map(|v| {
            std::env::var(v).map_err(|_| crate::client::env::MissingEnv {
                key: key.to_owned(),
                ambient: v.clone(),
            })
        })
        .transpose()
        .map_err(OAuthError::from)
}

impl Secrets {
    fn gather(oauth: &OAuthConfig, opts: &OAuthOptions) -> Result<Self, OAuthError> {
        let id_token_var = oauth
            .enterprise
            .as_ref()
            .map(|e| e.id_token_from_env.clone())
            .filter(|v| !v.is_empty());
        Ok(Secrets {
            client_secret: from_env(&oauth.client_secret_from_env, "client_secret")?
                .or_else(|| opts.client_secret.clone()),
            private_key_pem: from_env(&oauth.private_key_from_env, "private_key")?
                .or_else(|| opts.private_key_pem.clone()),
            id_token: from_env(&id_token_var, "id_token")?.or_else(|| opts.id_token.clone()),
            assertion: from_env(&oauth.assertion_from_env, "assertion")?
                .or_else(|| opts.assertion.clone()),
        })
    }
}

/// Obtains a token with the configured machine grant and puts it in the credential store.
pub(super) async fn authorize(
    http: &HttpConfig,
    oauth: &OAuthConfig,
    server_id: &str,
    opts: &OAuthOptions,
    challenge: &str,
    scopes: Option<Vec<String>>,
) -> Result<(), OAuthError> {
    let secrets = Secrets::gather(oauth, opts)?;
    // The workload identity grant authenticates with the workload's JWT; a client id is
    // optional there and required by the other machine grants.
    let client_id = match (&oauth.client_id, oauth.grant) {
        (Some(id), _) => id.clone(),
        (None, OAuthGrant::WorkloadIdentity) => String::new(),
        (None, _) => {
            return Err(OAuthError::Refused(
                "a machine grant needs `client_id`".to_owned(),
            ))
        }
    };
    let m = manager(http, server_id, opts).await?;
    let md = discover(&m, challenge).await?;
    check_endpoint(&md.token_endpoint)?;
    let issuer = md.issuer.clone().ok_or_else(|| {
        OAuthError::Refused("the authorization server metadata names no issuer".to_owned())
    })?;
    let scopes = scopes
        .or_else(|| oauth.scopes.clone())
        .or_else(|| challenge_scopes(http, challenge))
        .unwrap_or_default();
    // RFC 8707: the token is bound to this server.
    let resource = http.url.clone();
    let body = match oauth.grant {
        OAuthGrant::ClientCredentials => {
            client_credentials(&md, &issuer, &client_id, &secrets, &scopes, &resource).await?
        }
        OAuthGrant::Enterprise => {
            enterprise(
                oauth, &issuer, &md, &client_id, &secrets, &scopes, &resource,
            )
            .await?
        }
        OAuthGrant::WorkloadIdentity => {
            jwt_bearer(&md, &client_id, &secrets.assertion, &scopes, &resource).await?
        }
        OAuthGrant::AuthorizationCode => {
            return Err(OAuthError::Auth(
                "the authorization code grant is not a machine grant".to_owned(),
            ))
        }
    };
    let token: OAuthTokenResponse = serde_json::from_value(body)
        .map_err(|e| OAuthError::Auth(format!("the token response is malformed: {e}")))?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let stored =
        StoredCredentials::new(client_id, Some(token), scopes, Some(now)).with_issuer(Some(issuer));
    save(server_id, opts, stored).await
}

fn challenge_scopes(http: &HttpConfig, challenge: &str) -> Option<Vec<String>> {
    let base = url::Url::parse(&http.url).ok()?;
    let scope = WWWAuthenticateParams::parse(challenge, &base).scope?;
    let scopes: Vec<String> = scope.split_whitespace().map(str::to_owned).collect();
    (!scopes.is_empty()).then_some(scopes)
}

fn form_component(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

async fn client_credentials(
    md: &AuthorizationMetadata,
    issuer: &str,
    client_id: &str,
    secrets: &Secrets,
    scopes: &[String],
    resource: &str,
) -> Result<Value, OAuthError> {
    let scope = scopes.join(" ");
    let mut pairs: Vec<(&str, &str)> =
        vec![("grant_type", CLIENT_CREDENTIALS), ("resource", resource)];
    if !scope.is_empty() {
        pairs.push(("scope", &scope));
    }
    let client = no_redirect_client()?;
    let mut request = client.post(&md.token_endpoint);
    let assertion;
    match (&secrets.private_key_pem, &secrets.client_secret) {
        (Some(pem), _) => {
            assertion = sign_assertion(pem, client_id, issuer)?;
            pairs.push(("client_id", client_id));
            pairs.push(("client_assertion_type", JWT_ASSERTION_TYPE));
            pairs.push(("client_assertion", &assertion));
        }
        (None, Some(secret)) => {
            let basic = format!("{}:{}", form_component(client_id), form_component(secret));
            request = request.header(
                reqwest::header::AUTHORIZATION,
                format!("Basic {}", STANDARD.encode(basic)),
            );
        }
        (None, None) => {
            return Err(OAuthError::Refused(
                "client credentials need a client secret or a private key".to_owned(),
            ))
        }
    }
    post_token(request, &pairs, "the client credentials").await
}

/// An RFC 7523 client assertion signed with ES256: `iss` = `sub` = the client, `aud` = the
/// authorization server's issuer, a five-minute lifetime and a random `jti`.
fn sign_assertion(pem: &str, client_id: &str, audience: &str) -> Result<String, OAuthError> {
    use ring::signature::{EcdsaKeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
    let der = pem_body(pem)?;
    let rng = ring::rand::SystemRandom::new();
    let key =
        EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &der, &rng).map_err(|_| {
            OAuthError::Refused("the private key is not a PKCS#8 EC P-256 key (ES256)".to_owned())
        })?;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let header = json!({"alg": "ES256", "typ": "JWT"});
    let claims = json!({
        "iss": client_id, "sub": client_id, "aud": audience,
        "iat": now, "exp": now + ASSERTION_SECONDS,
        "jti": random_id(&rng)?,
    });
    sign_es256(&key, &rng, &header, &claims)
}

/// The DER inside a `-----BEGIN PRIVATE KEY-----` PEM block.
fn pem_body(pem: &str) -> Result<Vec<u8>, OAuthError> {
    let refused = || OAuthError::Refused("the private key is not a PKCS#8 PEM block".to_owned());
    let start = pem
        .find("-----BEGIN PRIVATE KEY-----")
        .ok_or_else(refused)?;
    let rest = &pem[start + "-----BEGIN PRIVATE KEY-----".len()..];
    let end = rest.find("-----END PRIVATE KEY-----").ok_or_else(refused)?;
    let b64: String = rest[..end].chars().filter(|c| !c.is_whitespace()).collect();
    STANDARD.decode(b64).map_err(|_| refused())
}

async fn enterprise(
    oauth: &OAuthConfig,
    issuer: &str,
    md: &AuthorizationMetadata,
    client_id: &str,
    secrets: &Secrets,
    scopes: &[String],
    resource: &str,
) -> Result<Value, OAuthError> {
    let idp = oauth.enterprise.as_ref().ok_or_else(|| {
        OAuthError::Refused("grant \"enterprise\" needs `[oauth.enterprise]`".to_owned())
    })?;
    let secret = secrets.client_secret.clone().ok_or_else(|| {
        OAuthError::Refused("grant \"enterprise\" needs the client secret".to_owned())
    })?;
    let id_token = secrets.id_token.clone().ok_or_else(|| {
        OAuthError::Refused("grant \"enterprise\" needs the enterprise ID token".to_owned())
    })?;
    check_endpoint(&idp.token_endpoint)?;
    let http = rmcp::transport::auth::default_oauth_http_client()?;
    let request = EmaExchangeRequest::new_with_id_token(
        EmaAuthorizationServer::new(&idp.issuer, &idp.token_endpoint, &idp.client_id),
        EmaAuthorizationServer::new(issuer, &md.token_endpoint, client_id)
            .with_client_authentication(EmaClientAuthentication::ClientSecretBasic(
                ClientSecret::new(secret),
            )),
        resource,
        &id_token,
    )
    .with_scopes(scopes.iter().cloned());
    let token = bounded("enterprise token exchange", DISCOVERY_BOUND, async {
        request
            .exchange(&http, &http)
            .await
            .map_err(|e| OAuthError::Auth(format!("the enterprise token exchange failed: {e}")))
    })
    .await?;
    let mut body = json!({
        "access_token": token.access_token.secret(),
        "token_type": "Bearer",
    });
    if let Some(expires) = token.expires_in {
        body["expires_in"] = json!(expires.as_secs());
    }
    if !token.scopes.is_empty() {
        let mut s: Vec<&str> = token.scopes.iter().map(String::as_str).collect();
        s.sort_unstable();
        body["scope"] = json!(s.join(" "));
    }
    Ok(body)
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::URL_SAFE_NO_PAD;

    #[test]
    fn a_pem_without_a_private_key_block_is_refused() {
        assert!(pem_body("-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----").is_err());
        assert!(sign_assertion("garbage", "c", "https://as").is_err());
    }

    #[test]
    fn an_assertion_verifies_with_the_public_key_and_names_the_client() {
        use ring::signature::{
            EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED, ECDSA_P256_SHA256_FIXED_SIGNING,
        };
        let rng = ring::rand::SystemRandom::new();
        let der = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der.as_ref())
        );
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, der.as_ref(), &rng).unwrap();
        let jwt = sign_assertion(&pem, "client-1", "https://as.example").unwrap();
        let parts: Vec<&str> = jwt.split('.').collect();
        assert_eq!(parts.len(), 3);
        let claims: Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(claims["iss"], "client-1");
        assert_eq!(claims["sub"], "client-1");
        assert_eq!(claims["aud"], "https://as.example");
        let sig = URL_SAFE_NO_PAD.decode(parts[2]).unwrap();
        let public = ring::signature::UnparsedPublicKey::new(
            &ECDSA_P256_SHA256_FIXED,
            pair.public_key().as_ref(),
        );
        public
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &sig)
            .unwrap();
        // A tampered claim no longer verifies.
        assert!(public
            .verify(format!("{}.{}x", parts[0], parts[1]).as_bytes(), &sig)
            .is_err());
    }

    #[test]
    fn basic_credentials_are_form_encoded_first() {
        assert_eq!(form_component("a b:c"), "a+b%3Ac");
    }
}
