//! Access on every request: the exact Host, a same-origin Origin, no cross-site fetch, and who the caller is.
//!
//! See `docs/security.md` for the threat model. A credential that is present must be valid: a
//! wrong, old or expired token or cookie is `unauthorized` and never falls back to local access.

use crate::envelope::ApiError;
use crate::peer::PeerInfo;
use crate::state::AppState;
use actix_web::http::header::{self, HeaderMap};
use actix_web::HttpRequest;
use rho_actors::contract::CallerKind;
use rho_actors::Principal;
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::time::SystemTime;
use uuid::Uuid;

/// The pairing cookie's name.
pub const PAIR_COOKIE: &str = "rho_pair";

/// What a caller may reach.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// Every project (local, operator, a paired tab without a folder).
    All,
    /// One project (an Agent grant).
    Project(Uuid),
    /// One folder below the root (a paired tab from `rho --pair --project FOLDER`).
    Folder(PathBuf),
}

/// The resolved caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub principal: Principal,
    pub kind: CallerKind,
    pub scope: Scope,
    /// The operations an Agent grant includes; `None` for other principals.
    pub methods: Option<BTreeSet<String>>,
}

fn forbidden(reason: &str) -> ApiError {
    ApiError::forbidden(reason.to_string())
}

/// At most one value of a header; two or more are refused (`None` = absent).
fn single<'a>(headers: &'a HeaderMap, name: &header::HeaderName) -> Result<Option<&'a [u8]>, ()> {
    let mut all = headers.get_all(name);
    let first = all.next();
    if all.next().is_some() {
        return Err(());
    }
    Ok(first.map(|v| v.as_bytes()))
}

/// Host, Origin and `Sec-Fetch-Site` checks for a service listening on `port`.
///
/// `authority` is the request target's authority when the client sent an absolute URI.
pub fn check_origin(
    headers: &HeaderMap,
    authority: Option<&str>,
    port: u16,
) -> Result<(), ApiError> {
    let wrong_host = || {
        forbidden(&format!(
            "the Host header must be exactly 127.0.0.1:{port} or localhost:{port}"
        ))
    };
    let host = single(headers, &header::HOST)
        .map_err(|()| wrong_host())?
        .ok_or_else(wrong_host)?;
    let ip_form = format!("127.0.0.1:{port}");
    let name_form = format!("localhost:{port}");
    if host != ip_form.as_bytes() && host != name_form.as_bytes() {
        return Err(wrong_host());
    }
    if let Some(a) = authority {
        if a.as_bytes() != host {
            return Err(wrong_host());
        }
    }
    let origin =
        single(headers, &header::ORIGIN).map_err(|()| forbidden("more than one Origin header"))?;
    if let Some(origin) = origin {
        let expected = [b"http://".as_slice(), host].concat();
        if origin != expected.as_slice() {
            return Err(forbidden(
                "the Origin must be this service's own address (cross-origin requests are refused)",
            ));
        }
    }
    let site = single(headers, &header::HeaderName::from_static("sec-fetch-site"))
        .map_err(|()| forbidden("more than one Sec-Fetch-Site header"))?;
    match site {
        None | Some(b"same-origin") | Some(b"none") => Ok(()),
        Some(_) => Err(forbidden(
            "a request from another site is refused (Sec-Fetch-Site)",
        )),
    }
}

/// The bearer token, if an Authorization header is present; a malformed one is refused.
fn bearer(headers: &HeaderMap) -> Result<Option<&str>, ApiError> {
    let bad = || ApiError::unauthorized("the Authorization header must be `Bearer <token>`");
    let Some(value) = single(headers, &header::AUTHORIZATION).map_err(|()| bad())? else {
        return Ok(None);
    };
    let text = std::str::from_utf8(value).map_err(|_| bad())?;
    let (scheme, token) = text.split_once(' ').ok_or_else(bad)?;
    let token = token.trim();
    if !scheme.eq_ignore_ascii_case("bearer") || token.is_empty() {
        return Err(bad());
    }
    Ok(Some(token))
}

/// The `rho_pair` cookie, if present; two of them are refused.
fn pair_cookie(headers: &HeaderMap) -> Result<Option<String>, ApiError> {
    let mut found = None;
    for value in headers.get_all(header::COOKIE) {
        let Ok(text) = value.to_str() else { continue };
        for pair in text.split(';') {
            let Some((name, v)) = pair.trim().split_once('=') else {
                continue;
            };
            if name.trim() == PAIR_COOKIE {
                if found.is_some() {
                    return Err(ApiError::unauthorized("more than one pairing cookie"));
                }
                found = Some(v.trim().to_string());
            }
        }
    }
    Ok(found)
}

/// Who is calling. Order: bearer token (operator, then Agent grants), pairing cookie, and only
/// with no credential at all the local browser (same OS user as the service).
pub fn resolve(req: &HttpRequest, state: &AppState) -> Result<Caller, ApiError> {
    let headers = req.headers();
    let token = bearer(headers)?;
    let cookie = pair_cookie(headers)?;
    match (token, cookie) {
        (Some(_), Some(_)) => Err(ApiError::unauthorized(
            "send one credential: a bearer token or the pairing cookie, not both",
        )),
        (Some(t), None) => by_token(t, state),
        (None, Some(c)) => by_cookie(&c, state),
        (None, None) => local(req, state),
    }
}

fn by_token(token: &str, state: &AppState) -> Result<Caller, ApiError> {
    if state.is_operator_token(token) {
        return Ok(Caller {
            principal: Principal::Operator,
            kind: CallerKind::Operator,
            scope: Scope::All,
            methods: None,
        });
    }
    let refused = || ApiError::unauthorized("the bearer token is not valid for this service");
    let grant = state.grants.resolve(token).ok_or_else(refused)?;
    if grant.expires_at.is_some_and(|t| t <= SystemTime::now()) {
        return Err(ApiError::unauthorized("the Agent grant has expired"));
    }
    Ok(Caller {
        principal: Principal::Agent(grant.session),
        kind: CallerKind::Agent,
        scope: Scope::Project(grant.project_id),
        methods: Some(grant.methods),
    })
}

fn by_cookie(cookie: &str, state: &AppState) -> Result<Caller, ApiError> {
    let session = state.pairing.session(cookie).ok_or_else(|| {
        ApiError::unauthorized(
            "this tab's pairing has expired or is unknown; ask for a new link (rho --pair)",
        )
    })?;
    Ok(Caller {
        principal: Principal::Paired(session.id),
        kind: CallerKind::Paired,
        scope: session.scope.map_or(Scope::All, Scope::Folder),
        methods: None,
    })
}

fn local(req: &HttpRequest, state: &AppState) -> Result<Caller, ApiError> {
    let peer_uid = req.conn_data::<PeerInfo>().and_then(|p| p.uid);
    match (peer_uid, state.service_uid) {
        (Some(peer), Some(own)) if peer == own => Ok(Caller {
            principal: Principal::Local,
            kind: CallerKind::Local,
            scope: Scope::All,
            methods: None,
        }),
        _ => Err(ApiError::unauthorized(
            "no credential, and this connection is not from the service's own OS user",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::http::header::{HeaderName, HeaderValue};

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                HeaderName::from_bytes(k.as_bytes()).unwrap(),
                HeaderValue::from_str(v).unwrap(),
            );
        }
        h
    }

    #[test]
    fn only_the_two_exact_hosts_pass() {
        for ok in ["127.0.0.1:8080", "localhost:8080"] {
            assert!(
                check_origin(&headers(&[("host", ok)]), None, 8080).is_ok(),
                "{ok}"
            );
        }
        for bad in [
            "127.0.0.1",
            "localhost",
            "127.0.0.1:8081",
            "LOCALHOST:8080",
            "Localhost:8080",
            "localhost.:8080",
            "127.1:8080",
            "2130706433:8080",
            "0x7f000001:8080",
            "0177.0.0.1:8080",
            "017700000001:8080",
            "[::ffff:127.0.0.1]:8080",
            "[::1]:8080",
            "evil.example:8080",
            "127.0.0.1:8080.",
            " 127.0.0.1:8080",
            "127.0.0.1:08080",
        ] {
            let e = check_origin(&headers(&[("host", bad)]), None, 8080).unwrap_err();
            assert_eq!(e.code.as_str(), "forbidden", "{bad}");
        }
        assert!(check_origin(&headers(&[]), None, 8080).is_err());
        let two = headers(&[("host", "127.0.0.1:8080"), ("host", "127.0.0.1:8080")]);
        assert!(check_origin(&two, None, 8080).is_err());
        let h = headers(&[("host", "127.0.0.1:8080")]);
        assert!(check_origin(&h, Some("evil:8080"), 8080).is_err());
    }

    #[test]
    fn origin_and_fetch_site() {
        let h = |o: &str| headers(&[("host", "localhost:9"), ("origin", o)]);
        assert!(check_origin(&h("http://localhost:9"), None, 9).is_ok());
        for bad in [
            "http://127.0.0.1:9",
            "https://localhost:9",
            "null",
            "http://localhost:9/",
            "http://evil",
        ] {
            assert!(check_origin(&h(bad), None, 9).is_err(), "{bad}");
        }
        let s = |v: &str| headers(&[("host", "localhost:9"), ("sec-fetch-site", v)]);
        assert!(check_origin(&s("same-origin"), None, 9).is_ok());
        assert!(check_origin(&s("none"), None, 9).is_ok());
        assert!(check_origin(&s("cross-site"), None, 9).is_err());
        assert!(check_origin(&s("same-site"), None, 9).is_err());
    }

    #[test]
    fn bearer_and_cookie_parsing() {
        assert_eq!(
            bearer(&headers(&[("authorization", "Bearer abc")])).unwrap(),
            Some("abc")
        );
        assert_eq!(bearer(&headers(&[])).unwrap(), None);
        for bad in ["Basic abc", "Bearer", "Bearer ", "abc"] {
            assert!(
                bearer(&headers(&[("authorization", bad)])).is_err(),
                "{bad}"
            );
        }
        let c = headers(&[("cookie", "a=1; rho_pair=xyz; b=2")]);
        assert_eq!(pair_cookie(&c).unwrap().as_deref(), Some("xyz"));
        let two = headers(&[("cookie", "rho_pair=x"), ("cookie", "rho_pair=y")]);
        assert!(pair_cookie(&two).is_err());
    }
}
