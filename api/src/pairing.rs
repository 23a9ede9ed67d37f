//! Pairing: one-time links that become a tab's `rho_pair` cookie, the `PairingStore` trait and its in-memory implementation.
//!
//! A link is a credential: single use, five minutes by default. Redeeming it creates a paired
//! session keyed by a new random secret (the cookie value). The store keeps only SHA-256 digests
//! of link tokens and cookie secrets, so a lookup's timing never depends on the secret itself.

use crate::secret::{random_token, SecretDigest};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

/// A freshly minted link; `token` (and so `path`) is the secret and must never be logged.
#[derive(Clone, PartialEq, Eq)]
pub struct PairLink {
    /// The future paired principal's id (`paired:<id>`); not secret.
    pub id: String,
    pub token: String,
    /// `/pair/<token>`, to be appended to the service URL.
    pub path: String,
    pub scope: Option<PathBuf>,
    pub expires_at: SystemTime,
}

impl std::fmt::Debug for PairLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairLink")
            .field("id", &self.id)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// A paired tab. `secret` is the cookie value (set by `redeem`, echoed by `session`).
#[derive(Clone, PartialEq, Eq)]
pub struct PairedSession {
    pub id: String,
    /// One folder below the service root, or `None` for the whole root.
    pub scope: Option<PathBuf>,
    pub expires_at: SystemTime,
    pub secret: String,
}

impl std::fmt::Debug for PairedSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PairedSession")
            .field("id", &self.id)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Why a link could not be redeemed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PairError {
    #[error("this pairing link was already used")]
    Used,
    #[error("this pairing link has expired")]
    Expired,
    #[error("this pairing link is not known to the running service")]
    Unknown,
}

/// Where links and paired sessions live.
pub trait PairingStore: Send + Sync {
    fn mint(&self, scope: Option<PathBuf>) -> PairLink;
    fn redeem(&self, link_token: &str) -> Result<PairedSession, PairError>;
    fn session(&self, cookie: &str) -> Option<PairedSession>;
}

/// A clock, injectable for tests.
pub type Clock = Arc<dyn Fn() -> SystemTime + Send + Sync>;

/// The link lifetime of the seed: five minutes.
pub const LINK_TTL: Duration = Duration::from_secs(5 * 60);
/// How long a paired tab stays paired.
pub const SESSION_TTL: Duration = Duration::from_secs(12 * 3600);
/// At most this many links and this many sessions are kept (oldest expiry dropped first).
const MAX_ENTRIES: usize = 256;

struct Link {
    id: String,
    scope: Option<PathBuf>,
    expires_at: SystemTime,
    used: bool,
}

#[derive(Default)]
struct Tables {
    links: HashMap<SecretDigest, Link>,
    sessions: HashMap<SecretDigest, PairedSession>,
}

/// Links and sessions in memory; lost on restart (a restarted service asks for a new link).
pub struct MemoryPairing {
    tables: Mutex<Tables>,
    clock: Clock,
    link_ttl: Duration,
    session_ttl: Duration,
}

impl Default for MemoryPairing {
    fn default() -> Self {
        MemoryPairing::with_clock(LINK_TTL, SESSION_TTL, Arc::new(SystemTime::now))
    }
}

impl MemoryPairing {
    pub fn new() -> Self {
        MemoryPairing::default()
    }

    pub fn with_clock(link_ttl: Duration, session_ttl: Duration, clock: Clock) -> Self {
        MemoryPairing {
            tables: Mutex::new(Tables::default()),
            clock,
            link_ttl,
            session_ttl,
        }
    }

    fn tables(&self) -> std::sync::MutexGuard<'_, Tables> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }
}

fn prune<V>(
    map: &mut HashMap<SecretDigest, V>,
    now: SystemTime,
    expiry: impl Fn(&V) -> SystemTime,
) {
    map.retain(|_, v| expiry(v) > now);
    while map.len() >= MAX_ENTRIES {
        let Some(oldest) = map.iter().min_by_key(|(_, v)| expiry(v)).map(|(k, _)| *k) else {
            break;
        };
        map.remove(&oldest);
    }
}

impl PairingStore for MemoryPairing {
    fn mint(&self, scope: Option<PathBuf>) -> PairLink {
        let now = (self.clock)();
        let token = random_token();
        let id = random_token()[..12].to_string();
        let expires_at = now + self.link_ttl;
        let mut t = self.tables();
        prune(&mut t.links, now, |l| l.expires_at);
        t.links.insert(
            SecretDigest::of(&token),
            Link {
                id: id.clone(),
                scope: scope.clone(),
                expires_at,
                used: false,
            },
        );
        PairLink {
            id,
            path: format!("/pair/{token}"),
            token,
            scope,
            expires_at,
        }
    }

    fn redeem(&self, link_token: &str) -> Result<PairedSession, PairError> {
        let now = (self.clock)();
        let mut t = self.tables();
        let link = t
            .links
            .get_mut(&SecretDigest::of(link_token))
            .ok_or(PairError::Unknown)?;
        if link.used {
            return Err(PairError::Used);
        }
        if link.expires_at <= now {
            return Err(PairError::Expired);
        }
        link.used = true;
        let session = PairedSession {
            id: link.id.clone(),
            scope: link.scope.clone(),
            expires_at: now + self.session_ttl,
            secret: random_token(),
        };
        prune(&mut t.sessions, now, |s| s.expires_at);
        let mut stored = session.clone();
        stored.secret.clear();
        t.sessions.insert(SecretDigest::of(&session.secret), stored);
        Ok(session)
    }

    fn session(&self, cookie: &str) -> Option<PairedSession> {
        let now = (self.clock)();
        let t = self.tables();
        let s = t.sessions.get(&SecretDigest::of(cookie))?;
        (s.expires_at > now).then(|| PairedSession {
            secret: cookie.to_string(),
            ..s.clone()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    fn clocked() -> (MemoryPairing, Arc<AtomicU64>) {
        let offset = Arc::new(AtomicU64::new(0));
        let base = SystemTime::now();
        let o = offset.clone();
        let clock: Clock = Arc::new(move || base + Duration::from_secs(o.load(Ordering::SeqCst)));
        (
            MemoryPairing::with_clock(LINK_TTL, Duration::from_secs(3600), clock),
            offset,
        )
    }

    #[test]
    fn a_link_is_single_use_and_its_session_resolves() {
        let (p, _) = clocked();
        let link = p.mint(Some(PathBuf::from("alpha")));
        assert_eq!(link.path, format!("/pair/{}", link.token));
        let s = p.redeem(&link.token).unwrap();
        assert_eq!(s.id, link.id);
        assert_eq!(p.redeem(&link.token), Err(PairError::Used));
        assert_eq!(p.redeem("nope"), Err(PairError::Unknown));
        let again = p.session(&s.secret).unwrap();
        assert_eq!(again.scope, Some(PathBuf::from("alpha")));
        assert!(p.session("nope").is_none());
        assert!(!format!("{s:?}{link:?}").contains(&link.token));
    }

    #[test]
    fn links_and_sessions_expire() {
        let (p, offset) = clocked();
        let late = p.mint(None);
        let ok = p.mint(None);
        let s = p.redeem(&ok.token).unwrap();
        offset.store(301, Ordering::SeqCst);
        assert_eq!(p.redeem(&late.token), Err(PairError::Expired));
        assert!(p.session(&s.secret).is_some());
        offset.store(3601, Ordering::SeqCst);
        assert!(p.session(&s.secret).is_none());
    }
}
