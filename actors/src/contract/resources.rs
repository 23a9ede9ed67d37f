//! Resource declarations of each operation (seed line 35): which kinds of resource it reads or produces.
//!
//! Published with each operation's contract (`protocol/`, `protocol.describe`). A declaration is
//! `{role: "reads"|"produces", kind}` where `kind` is `resource` (any registered bytes),
//! `table`, `media`, `object` (typed readers of a resource), `document` (a buffer) or `context`.

use serde_json::{json, Value};

/// `(operation, [(role, kind)])`, sorted by operation.
const DECLARATIONS: &[(&str, &[(&str, &str)])] = &[
    (
        "context.create",
        &[
            ("reads", "document"),
            ("reads", "media"),
            ("produces", "context"),
        ],
    ),
    ("context.read", &[("reads", "context")]),
    ("data.compare", &[("reads", "table")]),
    ("data.page", &[("reads", "table")]),
    ("data.plot", &[("reads", "table")]),
    ("document.changes", &[("reads", "document")]),
    ("document.close", &[("reads", "document")]),
    ("document.edit", &[("produces", "document")]),
    ("document.history", &[("reads", "document")]),
    ("document.open", &[("produces", "document")]),
    ("document.read", &[("reads", "document")]),
    ("document.revision", &[("reads", "document")]),
    ("document.save", &[("reads", "document")]),
    ("document.undo", &[("produces", "document")]),
    ("media.describe", &[("reads", "media")]),
    ("object.read", &[("reads", "object")]),
    ("resource.capture", &[("produces", "resource")]),
    ("resource.list", &[("reads", "resource")]),
    ("resource.read", &[("reads", "resource")]),
    ("resource.register", &[("produces", "resource")]),
];

/// The resource declarations of `operation` as published JSON (empty for none).
pub fn declarations(operation: &str) -> Value {
    let found = DECLARATIONS
        .iter()
        .find(|(name, _)| *name == operation)
        .map(|(_, d)| *d)
        .unwrap_or(&[]);
    Value::Array(
        found
            .iter()
            .map(|(role, kind)| json!({"role": role, "kind": kind}))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_names_a_declared_operation() {
        let ops: Vec<&str> = crate::contract::registry::all()
            .iter()
            .map(|o| o.name)
            .collect();
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
