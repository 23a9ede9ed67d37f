//! Streamable HTTP: HTTPS unless loopback, literal and environment headers (environment wins,
//! names compared case-insensitively), redirects disabled, rustls with the ring provider.

use std::collections::HashMap;
use std::net::IpAddr;

use reqwest::header::{HeaderName, HeaderValue};
use reqwest::Url;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransport, StreamableHttpClientTransportConfig,
};

use crate::client::config::HttpConfig;
use crate::client::env::MissingEnv;

/// Why an HTTP server entry cannot be connected.
#[derive(Debug, thiserror::Error)]
pub enum HttpSetupError {
    /// Not a URL.
    #[error("`url` is not a valid URL: {0}")]
    BadUrl(String),
    /// Plain HTTP to a non-loopback host.
    #[error("non-loopback MCP endpoints must use https (got {scheme}://{host})")]
    NotHttps {
        /// Scheme given.
        scheme: String,
        /// Host given.
        host: String,
    },
    /// A header-from-env variable is unset.
    #[error(transparent)]
    Env(#[from] MissingEnv),
    /// A header name or value is not valid HTTP (the value is never printed).
    #[error("header `{0}` has an invalid name or value")]
    BadHeader(String),
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
}

/// Whether a URL host is loopback (`localhost`, 127.0.0.0/8, `::1`).
pub fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(url::Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(url::Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

/// Parses and checks an MCP (or OAuth) endpoint: https, or http on loopback.
pub fn check_endpoint(raw: &str) -> Result<Url, HttpSetupError> {
    let url = Url::parse(raw).map_err(|e| HttpSetupError::BadUrl(e.to_string()))?;
    match url.scheme() {
        "https" => Ok(url),
        "http" if is_loopback(&url) => Ok(url),
        scheme => Err(HttpSetupError::NotHttps {
            scheme: scheme.to_owned(),
            host: url.host_str().unwrap_or("").to_owned(),
        }),
    }
}

/// The headers to send: literals, then environment-derived ones replacing any literal of the
/// same (case-insensitive) name. Also returns the environment-derived values for redaction.
pub fn build_headers(
    cfg: &HttpConfig,
    ambient: impl Fn(&str) -> Option<String>,
) -> Result<(HashMap<HeaderName, HeaderValue>, Vec<String>), HttpSetupError> {
    let mut out = HashMap::new();
    let mut secrets = Vec::new();
    let parse = |name: &str, value: &str| -> Result<(HeaderName, HeaderValue), HttpSetupError> {
        let n = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| HttpSetupError::BadHeader(name.to_owned()))?;
        let mut v =
            HeaderValue::from_str(value).map_err(|_| HttpSetupError::BadHeader(name.to_owned()))?;
        v.set_sensitive(true);
        Ok((n, v))
    };
    for (name, value) in &cfg.headers {
        let (n, v) = parse(name, value)?;
        out.insert(n, v);
    }
    for (name, var) in &cfg.headers_from_env {
        let value = ambient(var).ok_or_else(|| MissingEnv {
            key: name.clone(),
            ambient: var.clone(),
        })?;
        let (n, v) = parse(name, &value)?;
        secrets.push(value);
        // HeaderName is lowercase, so this replaces a literal of any case.
        out.insert(n, v);
    }
    Ok((out, secrets))
}

/// Whether the configured headers carry an `Authorization` (which suppresses OAuth).
pub fn has_authorization(cfg: &HttpConfig) -> bool {
    cfg.headers
        .keys()
        .chain(cfg.headers_from_env.keys())
        .any(|k| k.eq_ignore_ascii_case("authorization"))
}

/// Builds the rmcp transport for a server entry without OAuth (see `oauth::transport`).
pub fn transport(
    cfg: &HttpConfig,
) -> Result<StreamableHttpClientTransport<reqwest::Client>, HttpSetupError> {
    let config = transport_config(cfg)?;
    ensure_tls();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| HttpSetupError::Client(e.to_string()))?;
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// Installs rustls' ring provider as the process default (no aws-lc) before any HTTP client
/// is built; a provider already installed is fine.
pub fn ensure_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The rmcp transport settings: the checked URL and the configured headers.
pub fn transport_config(
    cfg: &HttpConfig,
) -> Result<StreamableHttpClientTransportConfig, HttpSetupError> {
    let url = check_endpoint(&cfg.url)?;
    let (headers, _secrets) = build_headers(cfg, |v| std::env::var(v).ok())?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
    config.custom_headers = headers;
    Ok(config)
}

/// Whether this entry uses the OAuth flow (an `[oauth]` table and no configured
/// `Authorization` header, which would suppress the flow entirely).
pub fn uses_oauth(cfg: &HttpConfig) -> bool {
    cfg.oauth.is_some() && !has_authorization(cfg)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    #[test]
    fn https_required_except_loopback() {
        assert!(check_endpoint("https://mcp.example.com/mcp").is_ok());
        assert!(check_endpoint("http://localhost:3000/mcp").is_ok());
        assert!(check_endpoint("http://127.8.9.10/mcp").is_ok());
        assert!(check_endpoint("http://[::1]:80/mcp").is_ok());
        assert!(matches!(
            check_endpoint("http://mcp.example.com/mcp"),
            Err(HttpSetupError::NotHttps { .. })
        ));
        assert!(check_endpoint("http://localhost.evil.com/mcp").is_err());
        assert!(check_endpoint("ftp://localhost/x").is_err());
    }

    #[test]
    fn environment_headers_win_case_insensitively() {
        let cfg = HttpConfig {
            url: "https://x".into(),
            headers: BTreeMap::from([
                ("authorization".into(), "Bearer literal".into()),
                ("X-Tenant".into(), "t".into()),
            ]),
            headers_from_env: BTreeMap::from([("Authorization".into(), "TOKEN_VAR".into())]),
            oauth: None,
        };
        let (h, secrets) = build_headers(&cfg, |v| {
            (v == "TOKEN_VAR").then(|| "Bearer env".to_owned())
        })
        .unwrap();
        assert_eq!(h[&HeaderName::from_static("authorization")], "Bearer env");
        assert_eq!(h[&HeaderName::from_static("x-tenant")], "t");
        assert_eq!(secrets, ["Bearer env"]);
        let err = build_headers(&cfg, |_| None).unwrap_err();
        assert!(err.to_string().contains("TOKEN_VAR"));
        assert!(has_authorization(&cfg));
    }
}
