//! UI component entries: what a browser may render, declared by the owner that serves its data, with props validation.

use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use serde::de::DeserializeOwned;
use serde_json::{json, Value};

/// One UI component entry (`capability.list` `entries`).
#[derive(Debug, Clone, Copy)]
pub struct EntrySpec {
    /// e.g. `rho.table`.
    pub name: &'static str,
    pub version: &'static str,
    pub owner: Owner,
    pub summary: &'static str,
    /// Whether this build's browser app renders it (`rho.editor` so far); `summary` says what there is.
    pub browser_renderer: bool,
    /// JSON Schema of its props.
    pub props: fn() -> schemars::Schema,
    /// Owner-side validation of one props value.
    pub validate: fn(&Value) -> Result<(), ActorError>,
}

impl EntrySpec {
    /// The entry as `capability.list` shows it.
    pub fn to_json(&self) -> Value {
        json!({
            "name": self.name,
            "version": self.version,
            "owner": self.owner.name(),
            "summary": self.summary,
            "browserRenderer": self.browser_renderer,
            "props": (self.props)(),
        })
    }
}

/// Parses props into their typed form; shape errors are `invalid` naming `props`.
pub fn parse_props<T: DeserializeOwned>(props: &Value) -> Result<T, ActorError> {
    serde_json::from_value(props.clone()).map_err(|e| ActorError::invalid("props", e.to_string()))
}

/// A resource reference names a version (`id` non-empty, `version` at least 1).
pub fn check_resource(field: &str, r: &ResourceRef) -> Result<(), ActorError> {
    if r.id.is_empty() || r.version == 0 {
        return Err(ActorError::invalid(
            field,
            "a resource reference names an id and a version (1 or more)",
        ));
    }
    Ok(())
}
