//! The `rho.editor` UI entry of owner Documents (the browser app's editor on a shared buffer) and its props validation.

use crate::contract::entry::{parse_props, EntrySpec};
use crate::contract::schema;
use crate::error::ActorError;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Props of `rho.editor`: the buffer, named by its project-relative path or its document id (one of them).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditorProps {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub document_id: Option<String>,
}

fn validate(props: &Value) -> Result<(), ActorError> {
    let p: EditorProps = parse_props(props)?;
    match (&p.path, &p.document_id) {
        (Some(path), None) => {
            if path.is_empty() || path.starts_with('/') || path.split('/').any(|s| s == "..") {
                return Err(ActorError::invalid(
                    "props.path",
                    "a project-relative path without `..`",
                ));
            }
            Ok(())
        }
        (None, Some(id)) => uuid::Uuid::parse_str(id)
            .map(|_| ())
            .map_err(|_| ActorError::invalid("props.documentId", "not a document id (UUID)")),
        _ => Err(ActorError::invalid(
            "props",
            "name the buffer by exactly one of path and documentId",
        )),
    }
}

/// `rho.editor`.
pub const ENTRY: EntrySpec = EntrySpec {
    name: "rho.editor",
    version: "0.2.0",
    owner: Owner::Documents,
    summary: "An editor on a shared buffer (document.open/read/edit/undo/save, live through document.changed); the browser app renders it.",
    browser_renderer: true,
    props: schema::<EditorProps>,
    validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn editor_props_name_one_buffer() {
        assert!(validate(&json!({"path": "analysis.R"})).is_ok());
        assert!(validate(&json!({"documentId": uuid::Uuid::new_v4().to_string()})).is_ok());
        assert!(validate(&json!({})).is_err());
        assert!(
            validate(&json!({"path": "a", "documentId": uuid::Uuid::new_v4().to_string()}))
                .is_err()
        );
        assert!(validate(&json!({"path": "../x"})).is_err());
        assert!(validate(&json!({"path": "/etc/passwd"})).is_err());
        assert!(validate(&json!({"documentId": "nope"})).is_err());
        assert!(validate(&json!({"path": "a", "extra": 1})).is_err());
    }
}
