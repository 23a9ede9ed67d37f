//! Resource declarations of each operation (seed line 35): which kinds of resource it reads or produces.
//!
//! Published with each operation's contract (`protocol/`, `protocol.describe`). A declaration is
//! `{role: "reads"|"produces", kind}` where `kind` is `resource` (any registered bytes),
//! `table`, `media`, `object` (typed readers of a resource), `document` (a buffer) or `context`.

use serde_json::{json, Value};

/// `(operation, [(role, kind)])`, sorted by operation.
pub(crate) const DECLARATIONS: &[(&str, &[(&str, &str)])] = &[
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
