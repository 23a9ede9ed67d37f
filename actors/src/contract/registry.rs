//! The registry of every declared operation, and its canonical published form.

use super::OperationSpec;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

/// Every operation this binary declares, sorted by name.
pub fn all() -> Vec<OperationSpec> {
    let mut ops: Vec<OperationSpec> = Vec::new();
    ops.extend_from_slice(crate::service_contract::OPERATIONS);
    ops.extend_from_slice(crate::documents::contract::OPERATIONS);
    ops.extend_from_slice(crate::files::contract::OPERATIONS);
    ops.extend_from_slice(crate::tables::contract::OPERATIONS);
    ops.extend_from_slice(crate::media::contract::OPERATIONS);
    ops.extend_from_slice(crate::charts::contract::OPERATIONS);
    ops.extend_from_slice(crate::objects::contract::OPERATIONS);
    ops.sort_by_key(|o| o.name);
    ops
}

/// The operation named `name`.
pub fn find(name: &str) -> Option<OperationSpec> {
    all().into_iter().find(|o| o.name == name)
}

/// The full public contract of one operation as JSON.
pub fn contract_json(op: &OperationSpec) -> Value {
    json!({
        "name": op.name,
        "version": op.version,
        "owner": op.owner.map_or("service", |o| o.name()),
        "effect": op.effect,
        "callers": op.callers,
        "projectScoped": op.project_scoped,
        "summary": op.summary,
        "request": (op.request)(),
        "response": (op.response)(),
        "errors": op.errors,
        "events": op.events,
    })
}

/// Canonical JSON bytes (object keys sorted at every depth).
pub fn canonical(value: &Value) -> Vec<u8> {
    // serde_json's map is a BTreeMap (no preserve_order feature), so keys come out sorted.
    serde_json::to_vec(value).unwrap_or_default()
}

/// Lowercase hex SHA-256 of the canonical JSON of one operation's contract.
pub fn contract_hash(op: &OperationSpec) -> String {
    crate::state::hex(&Sha256::digest(canonical(&contract_json(op))))
}
