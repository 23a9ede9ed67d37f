//! The `rho.media` UI entry of owner Media and its props validation.

use crate::contract::entry::{check_resource, parse_props, EntrySpec};
use crate::contract::schema;
use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Props of `rho.media`: a media resource version and, for a PDF, the page shown (1-based).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MediaProps {
    pub resource: ResourceRef,
    #[serde(default)]
    pub page: Option<u32>,
}

fn validate(props: &Value) -> Result<(), ActorError> {
    let p: MediaProps = parse_props(props)?;
    check_resource("props.resource", &p.resource)?;
    if p.page == Some(0) {
        return Err(ActorError::invalid("props.page", "pages count from 1"));
    }
    Ok(())
}

/// `rho.media`.
pub const ENTRY: EntrySpec = EntrySpec {
    name: "rho.media",
    version: "0.2.0",
    owner: Owner::Media,
    summary: "A PNG, JPEG, SVG or PDF resource version (one PDF page at a time), sized by media.describe.",
    browser_renderer: true,
    props: schema::<MediaProps>,
    validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn media_props() {
        let r = json!({"id": "a", "version": 1});
        assert!(validate(&json!({"resource": r})).is_ok());
        assert!(validate(&json!({"resource": r, "page": 2})).is_ok());
        assert!(validate(&json!({"resource": r, "page": 0})).is_err());
        assert!(validate(&json!({"resource": {"id": "a", "version": 0}})).is_err());
        assert!(validate(&json!({"resource": r, "zoom": 2})).is_err());
    }
}
