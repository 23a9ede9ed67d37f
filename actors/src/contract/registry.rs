//! The registry of every declared operation, and its canonical published form.

use super::OperationSpec;
use serde_json::{json, Value};

/// Every operation this binary declares, sorted by name.
pub fn all() -> Vec<OperationSpec> {
    let mut ops: Vec<OperationSpec> = Vec::new();
    ops.extend_from_slice(crate::service_contract::OPERATIONS);
    for owner in crate::owner_table::OWNERS {
        for list in owner.operations {
            ops.extend_from_slice(list);
        }
    }
    #[cfg(feature = "test-owner")]
    ops.extend_from_slice(crate::testing::OPERATIONS);
    ops.sort_by_key(|o| o.name);
    ops
}

/// Every UI component entry, each declared next to its owner's contract, sorted by name.
pub fn entries() -> Vec<super::entry::EntrySpec> {
    let mut entries: Vec<_> = crate::owner_table::OWNERS
        .iter()
        .flat_map(|o| o.entries.iter().copied())
        .collect();
    entries.sort_by_key(|e| e.name);
    entries
}

/// Every registered action, each declared next to its owner's contract, sorted by name.
pub fn actions() -> Vec<super::actions::ActionSpec> {
    let mut actions: Vec<_> = crate::owner_table::OWNERS
        .iter()
        .flat_map(|o| o.actions.iter().copied())
        .collect();
    actions.sort_by_key(|a| a.name);
    actions
}

/// The action submitted by operation `op`, if any.
pub fn action_submitted_by(op: &str) -> Option<super::actions::ActionSpec> {
    actions().into_iter().find(|a| a.submit == op)
}

/// Validates `props` of the entry named `name` (an unknown entry is `not_found`).
pub fn validate_entry_props(name: &str, props: &Value) -> Result<(), crate::error::ActorError> {
    let entry = entries()
        .into_iter()
        .find(|e| e.name == name)
        .ok_or_else(|| crate::error::ActorError::NotFound {
            what: format!("UI entry {name:?}"),
        })?;
    (entry.validate)(props)
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
        "resources": super::resources::declarations(op.name),
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
    rho_plumbing::sha256_hex(&canonical(&contract_json(op)))
}

#[cfg(test)]
mod entry_tests {
    use super::*;

    #[test]
    fn entries_are_unique_versioned_and_validated_by_name() {
        let e = entries();
        let names: Vec<&str> = e.iter().map(|e| e.name).collect();
        assert_eq!(
            names,
            [
                "rho.editor",
                "rho.media",
                "rho.object",
                "rho.scatter",
                "rho.table"
            ]
        );
        assert!(e.iter().all(|e| e.version == "0.2.0"));
        // The browser app draws every entry: the editor, media, the table, the scatter, the object.
        let drawn: Vec<&str> = e
            .iter()
            .filter(|e| e.browser_renderer)
            .map(|e| e.name)
            .collect();
        assert_eq!(
            drawn,
            [
                "rho.editor",
                "rho.media",
                "rho.object",
                "rho.scatter",
                "rho.table"
            ]
        );
        let object = e.iter().find(|e| e.name == "rho.object").map(|e| e.summary);
        assert!(object.is_some_and(|s| s.contains("JSON tree")));
        let r = json!({"resource": {"id": "x", "version": 1}});
        assert!(validate_entry_props("rho.table", &r).is_ok());
        assert!(validate_entry_props("rho.scatter", &r).is_err());
        assert!(matches!(
            validate_entry_props("rho.nope", &r),
            Err(crate::error::ActorError::NotFound { .. })
        ));
    }
}

#[cfg(test)]
mod resources_tests {
    use super::*;
    use crate::contract::resources::DECLARATIONS;

    #[test]
    fn every_resource_declaration_names_a_declared_operation() {
        let ops: Vec<&str> = all().iter().map(|o| o.name).collect();
        for (name, decls) in DECLARATIONS {
            assert!(ops.contains(name), "{name} is not a declared operation");
            assert!(decls
                .iter()
                .all(|(role, _)| *role == "reads" || *role == "produces"));
        }
        assert!(
            DECLARATIONS.windows(2).all(|w| w[0].0 < w[1].0),
            "sorted and unique"
        );
    }
}
