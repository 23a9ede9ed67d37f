//! What an Agent may be granted and what it is shown: grantable methods, the default business grant, and each operation's published Agent contract (cached, hashed).
//!
//! One catalog: every body comes from `contract::registry` (the same declarations as
//! `protocol/`). The Agent form of a contract strips only the injected `projectId`; its
//! schema's `$defs` already carry the complete dependency closure.

use crate::contract::registry::{self, canonical, contract_hash, contract_json};
use crate::contract::OperationSpec;
use crate::owners::Selection;
use serde_json::Value;
use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, OnceLock};

/// Methods an Agent grant can never include, whatever its contract says (issue 7).
pub const NEVER_GRANTABLE: &[&str] = &[
    "binding.activity.append",
    "feedback.pending",
    "feedback.step",
    "feedback.next",
    "feedback.emitted",
    "console.run",
    "console.stop",
    "kernel.stop",
    "annotation.decide",
];
/// Prefixes that are never grantable.
pub const NEVER_GRANTABLE_PREFIXES: &[&str] = &["session.", "conversation.", "evidence."];

/// Every Agent grant may call these; they are not listed in (or counted against) its methods.
pub const IMPLICIT: &[&str] = &["capability.index", "capability.resolve", "activity.report"];

/// The contract generation: contracts change at runtime only through the test owner's
/// `testing.revise`, so its revision is the generation (fixed without the test owner). The
/// catalog reads it; the test owner knows nothing of the catalog.
fn generation() -> u64 {
    #[cfg(feature = "test-owner")]
    return crate::testing::revision();
    #[cfg(not(feature = "test-owner"))]
    0
}

/// Whether `op` may be granted to an Agent: its contract allows the agent principal and it is not on the never list.
pub fn grantable(op: &OperationSpec) -> bool {
    op.grantable()
        && !IMPLICIT.contains(&op.name)
        && !NEVER_GRANTABLE.contains(&op.name)
        && !NEVER_GRANTABLE_PREFIXES
            .iter()
            .any(|p| op.name.starts_with(p))
}

/// Whether the owner of `op` is available in this run (service operations always are).
pub fn available(op: &OperationSpec, selection: &Selection) -> bool {
    op.owner.is_none_or(|o| selection.is_available(o))
}

/// The default business grant: every grantable operation of the available selected owners,
/// plus `project.entries` (and no other service or `project.*` operation).
pub fn default_methods(selection: &Selection) -> BTreeSet<String> {
    registry::all()
        .iter()
        .filter(|op| grantable(op))
        .filter(|op| match op.owner {
            Some(o) => selection.is_available(o),
            None => op.name == "project.entries",
        })
        .map(|op| op.name.to_string())
        .collect()
}

/// The owner label an operation is grouped under (`service` for the service's own).
pub fn owner_label(op: &OperationSpec) -> &'static str {
    op.owner.map_or("service", |o| o.name())
}

/// One operation's published Agent contract.
#[derive(Debug)]
pub struct Published {
    /// The Agent contract (projectId stripped from the request schema).
    pub body: Value,
    /// Canonical JSON of `body`.
    pub text: String,
    /// `sha256:<hex>` of `text`: the contract's ref in `capability.index/resolve`.
    pub reference: String,
    /// `sha256:<hex>` of the full public contract (`protocol/`, `protocol.describe`).
    pub protocol_hash: String,
}

impl Published {
    /// Whether a `Rho-Contract` value names this contract (either form).
    pub fn matches(&self, sent: &[u8]) -> bool {
        sent == self.reference.as_bytes() || sent == self.protocol_hash.as_bytes()
    }
}

/// `sha256:<hex>` of bytes.
pub fn reference(bytes: &[u8]) -> String {
    format!("sha256:{}", rho_plumbing::sha256_hex(bytes))
}

/// Removes `projectId` from a request schema's root `properties` and `required`.
pub fn strip_project_id(schema: &mut Value) {
    if let Some(props) = schema.get_mut("properties").and_then(Value::as_object_mut) {
        props.remove("projectId");
    }
    if let Some(req) = schema.get_mut("required").and_then(Value::as_array_mut) {
        req.retain(|v| v != "projectId");
    }
}

fn publish(op: &OperationSpec) -> Published {
    let mut body = contract_json(op);
    if op.project_scoped {
        strip_project_id(&mut body["request"]);
    }
    let text = String::from_utf8(canonical(&body)).unwrap_or_default();
    Published {
        reference: reference(text.as_bytes()),
        protocol_hash: format!("sha256:{}", contract_hash(op)),
        body,
        text,
    }
}

type Cache = Mutex<(u64, HashMap<&'static str, Arc<Published>>)>;

/// The published Agent contract of `op`, computed once per contract generation.
pub fn published(op: &OperationSpec) -> Arc<Published> {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let generation = generation();
    let cache = CACHE.get_or_init(|| Mutex::new((generation, HashMap::new())));
    {
        let mut c = cache.lock().unwrap_or_else(|p| p.into_inner());
        if c.0 != generation {
            *c = (generation, HashMap::new());
        }
        if let Some(p) = c.1.get(op.name) {
            return p.clone();
        }
    }
    let p = Arc::new(publish(op));
    let mut c = cache.lock().unwrap_or_else(|p| p.into_inner());
    if c.0 == generation {
        c.1.insert(op.name, p.clone());
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_grant_and_never_list() {
        let all = Selection::all();
        let methods = default_methods(&all);
        assert!(methods.contains("project.entries"));
        assert!(!methods
            .iter()
            .any(|m| m.starts_with("project.") && m != "project.entries"));
        assert!(!methods
            .iter()
            .any(|m| m.starts_with("session.") || IMPLICIT.contains(&m.as_str())));
        assert!(methods.len() <= 96);
        let none = Selection::parse("").unwrap();
        assert_eq!(default_methods(&none).len(), 1);
    }

    #[test]
    fn published_contract_strips_project_id_only() {
        let op = registry::find("document.open").unwrap();
        let p = published(&op);
        let req = &p.body["request"];
        assert!(req["properties"].get("projectId").is_none());
        assert!(!req["required"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v == "projectId"));
        assert!(req["properties"].get("path").is_some());
        assert_eq!(p.reference, reference(p.text.as_bytes()));
        assert!(p.matches(p.protocol_hash.as_bytes()));
        assert!(Arc::ptr_eq(&p, &published(&op)), "cached");
    }
}
