//! The `rho.object` UI entry of owner R and its props validation (the browser app draws it as a JSON tree).

use crate::contract::entry::{check_resource, parse_props, EntrySpec};
use crate::contract::schema;
use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Props of `rho.object`: a snapshot resource version and an optional pointer into its value.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ObjectProps {
    pub resource: ResourceRef,
    #[serde(default)]
    pub pointer: Option<String>,
}

fn validate(props: &Value) -> Result<(), ActorError> {
    let p: ObjectProps = parse_props(props)?;
    check_resource("props.resource", &p.resource)?;
    if let Some(ptr) = &p.pointer {
        if !ptr.is_empty() && !ptr.starts_with('/') {
            return Err(ActorError::invalid(
                "props.pointer",
                "an RFC 6901 pointer is empty or starts with /",
            ));
        }
    }
    Ok(())
}

/// `rho.object`.
pub const ENTRY: EntrySpec = EntrySpec {
    name: "rho.object",
    version: "0.2.0",
    owner: Owner::R,
    summary: "An exported R object snapshot read with object.read; the browser app draws it as a keyboard-navigable JSON tree, paged by pointer.",
    browser_renderer: true,
    props: schema::<ObjectProps>,
    validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn object_props() {
        let r = json!({"id": "o", "version": 1});
        assert!(validate(&json!({"resource": r})).is_ok());
        assert!(validate(&json!({"resource": r, "pointer": "/coef/0"})).is_ok());
        assert!(validate(&json!({"resource": r, "pointer": "coef"})).is_err());
        assert!(validate(&json!({"pointer": ""})).is_err());
    }
}
