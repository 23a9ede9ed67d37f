//! The Agent grant store: one record per (project, session) in the service registry, holding only a SHA-256 digest of the token.
//!
//! The registry (sled, flushed before a write is acknowledged) is the durable store; an
//! in-memory index by token digest mirrors it and is updated under the same lock, so a
//! revocation or replacement is refused at once. Tokens are never stored, logged or returned
//! except to the caller that minted them (who writes the private connection file).

use crate::registry::{Registry, RegistryError};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, RwLock};
use uuid::Uuid;

/// The only profile this build serves (the presentation profile comes later).
pub const BUSINESS_PROFILE: &str = "layered-business";

/// Default grant lifetime: 30 days.
pub const DEFAULT_EXPIRY_MS: i64 = 30 * 24 * 3600 * 1000;

/// RFC 3339 (milliseconds, UTC) of Unix milliseconds: how grant and activity times travel.
pub use rho_plumbing::time::rfc3339_ms as rfc3339;

/// One stored grant (no token: its digest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantRecord {
    pub project_id: Uuid,
    pub session: String,
    /// Lowercase hex SHA-256 of the token.
    pub digest: String,
    pub methods: BTreeSet<String>,
    pub profile: String,
    pub expires_ms: i64,
    pub created_ms: i64,
}

impl GrantRecord {
    /// Whether the record is in force at `now_ms`.
    pub fn valid_at(&self, now_ms: i64) -> bool {
        self.expires_ms > now_ms
    }
}

/// What a new grant asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GrantScope {
    pub methods: BTreeSet<String>,
    pub profile: String,
    pub expires_ms: i64,
}

/// What `mint` did.
#[derive(Debug, Clone)]
pub enum Minted {
    /// The same scope was already granted and valid: nothing changed.
    Kept(GrantRecord),
    /// A fresh token (to be written to the connection file); `replaced` is the old record.
    New {
        record: GrantRecord,
        token: String,
        replaced: Option<GrantRecord>,
    },
}

/// A session name is 1-64 of `A-Z a-z 0-9 . _ -`, not starting with a dot (it names a file).
pub fn valid_session(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && !s.starts_with('.')
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// Lowercase hex SHA-256 of a token.
pub fn token_digest(token: &str) -> String {
    rho_plumbing::sha256_hex(token.as_bytes())
}

fn key(project: Uuid, session: &str) -> String {
    format!("{project}/{session}")
}

/// A new random token (256 bits, hex).
fn new_token() -> String {
    let bytes: [u8; 32] = rand::random();
    rho_plumbing::hex::encode(&bytes)
}

/// The grant store of one service run.
#[derive(Clone)]
pub struct GrantRegistry {
    registry: Registry,
    by_digest: Arc<RwLock<HashMap<String, GrantRecord>>>,
    writes: Arc<Mutex<()>>,
}

impl GrantRegistry {
    /// Loads every stored grant.
    pub fn load(registry: Registry) -> Result<GrantRegistry, RegistryError> {
        let mut by_digest = HashMap::new();
        for (_, bytes) in registry.grant_entries()? {
            if let Ok(rec) = serde_json::from_slice::<GrantRecord>(&bytes) {
                by_digest.insert(rec.digest.clone(), rec);
            }
        }
        Ok(GrantRegistry {
            registry,
            by_digest: Arc::new(RwLock::new(by_digest)),
            writes: Arc::new(Mutex::new(())),
        })
    }

    fn index(&self) -> std::sync::RwLockReadGuard<'_, HashMap<String, GrantRecord>> {
        self.by_digest.read().unwrap_or_else(|p| p.into_inner())
    }

    fn index_mut(&self) -> std::sync::RwLockWriteGuard<'_, HashMap<String, GrantRecord>> {
        self.by_digest.write().unwrap_or_else(|p| p.into_inner())
    }

    /// The grant a bearer token names, if any (expired ones too: the caller checks the time).
    pub fn resolve(&self, token: &str) -> Option<GrantRecord> {
        self.index().get(&token_digest(token)).cloned()
    }

    /// The grant of (project, session).
    pub fn get(&self, project: Uuid, session: &str) -> Option<GrantRecord> {
        self.index()
            .values()
            .find(|r| r.project_id == project && r.session == session)
            .cloned()
    }

    /// Every grant of one project, by session.
    pub fn of_project(&self, project: Uuid) -> Vec<GrantRecord> {
        let mut v: Vec<GrantRecord> = self
            .index()
            .values()
            .filter(|r| r.project_id == project)
            .cloned()
            .collect();
        v.sort_by(|a, b| a.session.cmp(&b.session));
        v
    }

    /// Grants `scope` to (project, session). The same valid scope keeps its token when
    /// `holds_token` confirms the caller still holds it (the connection file); anything else
    /// mints a fresh token and the old one stops working at once.
    pub fn mint(
        &self,
        project: Uuid,
        session: &str,
        scope: &GrantScope,
        now_ms: i64,
        holds_token: impl Fn(&GrantRecord) -> bool,
    ) -> Result<Minted, RegistryError> {
        let _w = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        let old = self.get(project, session);
        if let Some(old) = &old {
            if old.valid_at(now_ms)
                && old.methods == scope.methods
                && old.profile == scope.profile
                && old.expires_ms == scope.expires_ms
                && holds_token(old)
            {
                return Ok(Minted::Kept(old.clone()));
            }
        }
        let token = new_token();
        let record = GrantRecord {
            project_id: project,
            session: session.to_string(),
            digest: token_digest(&token),
            methods: scope.methods.clone(),
            profile: scope.profile.clone(),
            expires_ms: scope.expires_ms,
            created_ms: now_ms,
        };
        self.registry.put_grant(&key(project, session), &record)?;
        let mut index = self.index_mut();
        if let Some(old) = &old {
            index.remove(&old.digest);
        }
        index.insert(record.digest.clone(), record.clone());
        Ok(Minted::New {
            record,
            token,
            replaced: old,
        })
    }

    /// Ends the grant of (project, session); `None` when there was none.
    pub fn revoke(
        &self,
        project: Uuid,
        session: &str,
    ) -> Result<Option<GrantRecord>, RegistryError> {
        let _w = self.writes.lock().unwrap_or_else(|p| p.into_inner());
        let Some(old) = self.get(project, session) else {
            return Ok(None);
        };
        // Refused in memory first: no request may pass between the two steps.
        self.index_mut().remove(&old.digest);
        if let Err(e) = self.registry.remove_grant(&key(project, session)) {
            self.index_mut().insert(old.digest.clone(), old);
            return Err(e);
        }
        Ok(Some(old))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mint_keep_replace_revoke_and_reload() {
        let dir = tempfile::tempdir().unwrap();
        let (reg, _) = Registry::open(dir.path()).unwrap();
        let g = GrantRegistry::load(reg).unwrap();
        let p = Uuid::new_v4();
        let scope = GrantScope {
            methods: ["project.entries".to_string()].into(),
            profile: BUSINESS_PROFILE.into(),
            expires_ms: 10_000,
        };
        let Minted::New { token, record, .. } = g.mint(p, "s", &scope, 1, |_| true).unwrap() else {
            panic!("first grant is new")
        };
        assert_eq!(g.resolve(&token).unwrap(), record);
        assert!(matches!(
            g.mint(p, "s", &scope, 2, |_| true).unwrap(),
            Minted::Kept(_)
        ));
        // A caller that lost the token gets a fresh one.
        assert!(matches!(
            g.mint(p, "s", &scope, 2, |_| false).unwrap(),
            Minted::New { .. }
        ));
        assert!(
            g.resolve(&token).is_none(),
            "the old token is refused at once"
        );
        let wider = GrantScope {
            methods: ["project.entries".to_string(), "document.open".to_string()].into(),
            ..scope.clone()
        };
        let Minted::New { token: t2, .. } = g.mint(p, "s", &wider, 3, |_| true).unwrap() else {
            panic!("changed scope mints")
        };
        drop(g);
        let (reg, _) = crate::registry::reopen_after_drop(dir.path());
        let g = GrantRegistry::load(reg).unwrap();
        assert_eq!(g.resolve(&t2).unwrap().methods.len(), 2);
        assert!(g.revoke(p, "s").unwrap().is_some());
        assert!(g.resolve(&t2).is_none());
        assert!(g.revoke(p, "s").unwrap().is_none());
        assert!(valid_session("claude-code") && !valid_session("../x") && !valid_session(""));
    }
}
