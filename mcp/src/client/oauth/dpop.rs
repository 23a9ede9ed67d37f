//! DPoP (RFC 9449) where an authorization server asks for it (its metadata lists ES256 in
//! `dpop_signing_alg_values_supported`): one P-256 key per server and run, ES256 proofs
//! (`typ` dpop+jwt, the public JWK, a fresh `jti`, `htm`, `htu`, `iat`, `ath` for resource
//! requests, the server's `nonce` once given), and the token requests' proofs with the
//! `use_dpop_nonce` retry (RFC 9449 §8). Resource requests are in `dpop_http.rs`.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ring::rand::{SecureRandom, SystemRandom};
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use rmcp::transport::auth::{
    AuthorizationMetadata, OAuthHttpClient, OAuthHttpClientFuture, OAuthHttpRequest,
};
use serde_json::{json, Value};
use sha2::Digest;

use super::error::{OAuthError, DISCOVERY_BOUND};

/// The one proof algorithm Rho signs.
const ALG: &str = "ES256";

/// Whether the authorization server asks for DPoP-bound tokens Rho can make.
pub(super) fn wanted(md: &AuthorizationMetadata) -> bool {
    md.additional_fields
        .get("dpop_signing_alg_values_supported")
        .and_then(Value::as_array)
        .is_some_and(|algs| algs.iter().any(|a| a.as_str() == Some(ALG)))
}

/// Signs `header.claims` with ES256 (a JWS compact serialization).
pub(super) fn sign_es256(
    key: &EcdsaKeyPair,
    rng: &SystemRandom,
    header: &Value,
    claims: &Value,
) -> Result<String, OAuthError> {
    let input = format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(header.to_string()),
        URL_SAFE_NO_PAD.encode(claims.to_string())
    );
    let signature = key
        .sign(rng, input.as_bytes())
        .map_err(|_| OAuthError::Auth("ES256 signing failed".to_owned()))?;
    Ok(format!(
        "{input}.{}",
        URL_SAFE_NO_PAD.encode(signature.as_ref())
    ))
}

/// A random identifier (hex of 16 bytes) for `jti`.
pub(super) fn random_id(rng: &SystemRandom) -> Result<String, OAuthError> {
    let mut id = [0u8; 16];
    rng.fill(&mut id)
        .map_err(|_| OAuthError::Auth("no randomness for a token id".to_owned()))?;
    Ok(rho_plumbing::hex::encode(&id))
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A proof key and the nonces the servers handed out.
pub(super) struct DpopKey {
    pair: EcdsaKeyPair,
    /// The private key (PKCS#8 DER), for the 0600 key file.
    pkcs8: Vec<u8>,
    rng: SystemRandom,
    jwk: Value,
    /// The authorization server's latest `DPoP-Nonce`.
    as_nonce: Mutex<Option<String>>,
    /// The resource server's latest `DPoP-Nonce`.
    rs_nonce: Mutex<Option<String>>,
}

impl std::fmt::Debug for DpopKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private key.
        f.debug_struct("DpopKey")
            .field("jwk", &self.jwk)
            .finish_non_exhaustive()
    }
}

impl DpopKey {
    /// A fresh P-256 key.
    pub(super) fn generate() -> Result<Arc<DpopKey>, OAuthError> {
        let pkcs8 =
            EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &SystemRandom::new())
                .map_err(|_| OAuthError::Auth("cannot generate a DPoP key".to_owned()))?;
        Self::from_pkcs8(pkcs8.as_ref())
    }

    /// The key in `pkcs8` (DER), e.g. from the key file.
    pub(super) fn from_pkcs8(pkcs8: &[u8]) -> Result<Arc<DpopKey>, OAuthError> {
        let rng = SystemRandom::new();
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8, &rng)
            .map_err(|_| OAuthError::Auth("the DPoP key is not an EC P-256 key".to_owned()))?;
        // The public key is the uncompressed point 0x04 || X || Y.
        let point = pair.public_key().as_ref();
        let (x, y) = point
            .get(1..33)
            .zip(point.get(33..65))
            .ok_or_else(|| OAuthError::Auth("unexpected P-256 public key".to_owned()))?;
        let jwk = json!({
            "kty": "EC", "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x), "y": URL_SAFE_NO_PAD.encode(y),
        });
        Ok(Arc::new(DpopKey {
            pair,
            pkcs8: pkcs8.to_vec(),
            rng,
            jwk,
            as_nonce: Mutex::new(None),
            rs_nonce: Mutex::new(None),
        }))
    }

    /// The private key (PKCS#8 DER).
    pub(super) fn pkcs8(&self) -> &[u8] {
        &self.pkcs8
    }

    /// A proof for one request: `htu` without query or fragment, `ath` when a token is
    /// presented, the resource server's (`token` given) or authorization server's nonce.
    pub(super) fn proof(
        &self,
        htm: &str,
        htu: &str,
        token: Option<&str>,
    ) -> Result<String, OAuthError> {
        let htu = htu.split(['?', '#']).next().unwrap_or(htu);
        let mut claims = json!({
            "jti": random_id(&self.rng)?, "htm": htm, "htu": htu, "iat": now_secs(),
        });
        if let Some(token) = token {
            claims["ath"] = json!(URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(token.as_bytes())));
        }
        let nonce = if token.is_some() {
            &self.rs_nonce
        } else {
            &self.as_nonce
        };
        if let Some(n) = nonce.lock().unwrap_or_else(PoisonError::into_inner).clone() {
            claims["nonce"] = json!(n);
        }
        let header = json!({"typ": "dpop+jwt", "alg": ALG, "jwk": self.jwk});
        sign_es256(&self.pair, &self.rng, &header, &claims)
    }

    /// Records a resource server nonce.
    pub(super) fn set_rs_nonce(&self, nonce: String) {
        *self.rs_nonce.lock().unwrap_or_else(PoisonError::into_inner) = Some(nonce);
    }

    fn set_as_nonce(&self, nonce: String) {
        *self.as_nonce.lock().unwrap_or_else(PoisonError::into_inner) = Some(nonce);
    }
}

/// rmcp's OAuth HTTP client with a DPoP proof on every request to the token endpoint
/// (code exchange and refresh), retried once with the server's nonce on `use_dpop_nonce`.
/// Token requests go out through Rho's own no-redirect client; everything else (metadata,
/// registration) through rmcp's.
pub(super) struct DpopOAuthHttp {
    pub(super) inner: Arc<dyn OAuthHttpClient>,
    pub(super) key: Arc<DpopKey>,
    pub(super) token_endpoint: String,
    pub(super) http: reqwest::Client,
}

fn asks_for_nonce(response: &oauth2::HttpResponse) -> Option<String> {
    let nonce = response
        .headers()
        .get("dpop-nonce")?
        .to_str()
        .ok()?
        .to_owned();
    let body: Value = serde_json::from_slice(response.body()).ok()?;
    (response.status().as_u16() == 400 && body["error"] == "use_dpop_nonce").then_some(nonce)
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl DpopOAuthHttp {
    /// Sends one token request with a fresh proof (bounded like every token request).
    async fn send(&self, request: &oauth2::HttpRequest) -> Result<oauth2::HttpResponse, BoxError> {
        let proof = self.key.proof("POST", &self.token_endpoint, None)?;
        let sent = self
            .http
            .post(&self.token_endpoint)
            .headers(request.headers().clone())
            .header("dpop", proof)
            .body(request.body().clone())
            .send();
        let response = tokio::time::timeout(DISCOVERY_BOUND, sent)
            .await
            .map_err(|_| OAuthError::Timeout("token request", DISCOVERY_BOUND.as_secs()))??;
        let status = response.status();
        let headers = response.headers().clone();
        let body = response.bytes().await?.to_vec();
        let mut out = oauth2::HttpResponse::new(body);
        *out.status_mut() = status;
        *out.headers_mut() = headers;
        Ok(out)
    }
}

impl OAuthHttpClient for DpopOAuthHttp {
    fn execute(&self, request: OAuthHttpRequest) -> OAuthHttpClientFuture<'_> {
        Box::pin(async move {
            let to_token = *request.request.method() == reqwest::Method::POST
                && request.request.uri().to_string() == self.token_endpoint;
            if !to_token {
                return self.inner.execute(request).await;
            }
            let response = self.send(&request.request).await?;
            let Some(nonce) = asks_for_nonce(&response) else {
                return Ok(response);
            };
            // RFC 9449 §8: one retry carrying the server's nonce, with a fresh proof.
            self.key.set_as_nonce(nonce);
            self.send(&request.request).await
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(jwt: &str, i: usize) -> Value {
        let p = jwt.split('.').nth(i).unwrap();
        serde_json::from_slice(&URL_SAFE_NO_PAD.decode(p).unwrap()).unwrap()
    }

    #[test]
    fn a_proof_is_a_dpop_jwt_signed_by_its_public_jwk() {
        let key = DpopKey::generate().unwrap();
        let proof = key
            .proof("POST", "https://mcp.example/mcp?x=1#f", Some("tok"))
            .unwrap();
        let (header, claims) = (part(&proof, 0), part(&proof, 1));
        assert_eq!(header["typ"], "dpop+jwt");
        assert_eq!(header["alg"], "ES256");
        assert!(
            header["jwk"].get("d").is_none(),
            "no private key in the JWK"
        );
        assert_eq!(claims["htm"], "POST");
        assert_eq!(claims["htu"], "https://mcp.example/mcp");
        assert_eq!(
            claims["ath"],
            URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(b"tok"))
        );
        assert!(claims.get("nonce").is_none());
        // The signature verifies with the key in the header.
        let x = URL_SAFE_NO_PAD
            .decode(header["jwk"]["x"].as_str().unwrap())
            .unwrap();
        let y = URL_SAFE_NO_PAD
            .decode(header["jwk"]["y"].as_str().unwrap())
            .unwrap();
        let point: Vec<u8> = [vec![4u8], x, y].concat();
        let public = ring::signature::UnparsedPublicKey::new(
            &ring::signature::ECDSA_P256_SHA256_FIXED,
            point,
        );
        let (input, sig) = proof.rsplit_once('.').unwrap();
        public
            .verify(input.as_bytes(), &URL_SAFE_NO_PAD.decode(sig).unwrap())
            .unwrap();
        // Each proof is fresh.
        let again = key
            .proof("POST", "https://mcp.example/mcp", Some("tok"))
            .unwrap();
        assert_ne!(part(&again, 1)["jti"], claims["jti"]);
    }

    #[test]
    fn nonces_go_to_the_server_that_gave_them() {
        let key = DpopKey::generate().unwrap();
        key.set_rs_nonce("rs-n".to_owned());
        key.set_as_nonce("as-n".to_owned());
        let to_rs = key
            .proof("POST", "https://mcp.example/mcp", Some("t"))
            .unwrap();
        let to_as = key.proof("POST", "https://as.example/token", None).unwrap();
        assert_eq!(part(&to_rs, 1)["nonce"], "rs-n");
        assert_eq!(part(&to_as, 1)["nonce"], "as-n");
        assert!(part(&to_as, 1).get("ath").is_none());
        // The same key after a round trip through its PKCS#8 form.
        let back = DpopKey::from_pkcs8(key.pkcs8()).unwrap();
        assert_eq!(back.jwk, key.jwk);
        assert!(!format!("{key:?}").contains(&URL_SAFE_NO_PAD.encode(key.pkcs8())));
    }

    #[test]
    fn dpop_is_wanted_only_with_es256_listed() {
        let md = |v: Value| -> AuthorizationMetadata {
            serde_json::from_value(json!({
                "authorization_endpoint": "https://as/a", "token_endpoint": "https://as/t",
                "dpop_signing_alg_values_supported": v,
            }))
            .unwrap()
        };
        assert!(wanted(&md(json!(["ES256", "RS256"]))));
        assert!(!wanted(&md(json!(["RS256"]))));
        assert!(!wanted(&md(json!([]))));
    }
}
