//! Caller identities: "same identity + same input" returns the original reply, different input is a conflict.
//!
//! "Same input" is the SHA-256 of the request's canonical JSON (object keys sorted) without
//! `projectId` and without the identity field itself (CONVENTIONS, Identity).

use crate::error::ActorError;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// SHA-256 of a request's canonical input.
pub type InputDigest = [u8; 32];

/// Digest of `request` as canonical JSON, leaving out `projectId` and `identity_field`.
pub fn input_digest<T: Serialize>(request: &T, identity_field: &str) -> InputDigest {
    let mut value = serde_json::to_value(request).unwrap_or(serde_json::Value::Null);
    if let serde_json::Value::Object(map) = &mut value {
        map.remove("projectId");
        map.remove(identity_field);
    }
    // serde_json's default map is a BTreeMap, so `to_vec` writes keys sorted at every depth.
    let canonical = serde_json::to_vec(&value).unwrap_or_default();
    Sha256::digest(&canonical).into()
}

/// One retained identity: the input it was used with and the reply it got.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityRecord<R> {
    pub digest: InputDigest,
    pub reply: R,
}

/// Identities of one entity (or one scope), kept for the entity's life and rebuilt by replay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdentityTable<R> {
    records: BTreeMap<String, IdentityRecord<R>>,
}

impl<R> Default for IdentityTable<R> {
    fn default() -> Self {
        IdentityTable {
            records: BTreeMap::new(),
        }
    }
}

impl<R: Clone> IdentityTable<R> {
    /// `Ok(Some(reply))` for a retry with the same input, `Ok(None)` for a new identity,
    /// `conflict` for a reuse with different input.
    pub fn check(&self, id: &str, digest: &InputDigest) -> Result<Option<R>, ActorError> {
        match self.records.get(id) {
            None => Ok(None),
            Some(rec) if &rec.digest == digest => Ok(Some(rec.reply.clone())),
            Some(_) => Err(ActorError::conflict(format!(
                "identity {id:?} was already used with a different input"
            ))),
        }
    }

    /// Remembers the reply an identity got; called from the fold, so replay rebuilds it.
    pub fn record(&mut self, id: String, digest: InputDigest, reply: R) {
        self.records.insert(id, IdentityRecord { digest, reply });
    }

    pub fn len(&self) -> usize {
        self.records.len()
    }

    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn digest_ignores_key_order_project_and_identity() {
        let a = json!({"projectId": "p1", "changeId": "c1", "b": [1, {"y": 1, "x": 2}], "a": "s"});
        let b = json!({"a": "s", "b": [1, {"x": 2, "y": 1}], "changeId": "c2", "projectId": "p2"});
        assert_eq!(input_digest(&a, "changeId"), input_digest(&b, "changeId"));
        let c = json!({"a": "t", "b": [1, {"x": 2, "y": 1}]});
        assert_ne!(input_digest(&a, "changeId"), input_digest(&c, "changeId"));
    }

    #[test]
    fn same_identity_same_input_replays_different_input_conflicts() {
        let mut t = IdentityTable::default();
        let d1 = input_digest(&json!({"x": 1}), "changeId");
        let d2 = input_digest(&json!({"x": 2}), "changeId");
        assert_eq!(t.check("c", &d1), Ok(None));
        t.record("c".into(), d1, 7u64);
        assert_eq!(t.check("c", &d1), Ok(Some(7)));
        assert_eq!(t.check("c", &d2).unwrap_err().code(), "conflict");
    }
}
