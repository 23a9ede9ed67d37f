//! The `rho.table` UI entry of owner Tables and its props validation.

use crate::contract::entry::{check_resource, parse_props, EntrySpec};
use crate::contract::schema;
use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// Props of `rho.table`: a table resource version and, optionally, the columns shown in order.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TableProps {
    pub resource: ResourceRef,
    #[serde(default)]
    pub columns: Option<Vec<String>>,
}

fn validate(props: &Value) -> Result<(), ActorError> {
    let p: TableProps = parse_props(props)?;
    check_resource("props.resource", &p.resource)?;
    if let Some(cols) = &p.columns {
        for (i, c) in cols.iter().enumerate() {
            if c.is_empty() || cols[..i].contains(c) {
                return Err(ActorError::Invalid {
                    field: Some("props.columns".into()),
                    index: Some(i as u64),
                    reason: "columns are named once each".into(),
                });
            }
        }
    }
    Ok(())
}

/// `rho.table`.
pub const ENTRY: EntrySpec = EntrySpec {
    name: "rho.table",
    version: "0.2.0",
    owner: Owner::Tables,
    summary:
        "A typed table resource version paged with data.page (filter, stable sort, entity keys); the browser app draws it as a virtual grid.",
    browser_renderer: true,
    props: schema::<TableProps>,
    validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn table_props() {
        let r = json!({"id": "t", "version": 3});
        assert!(validate(&json!({"resource": r})).is_ok());
        assert!(validate(&json!({"resource": r, "columns": ["a", "b"]})).is_ok());
        assert!(validate(&json!({"resource": r, "columns": ["a", "a"]})).is_err());
        assert!(validate(&json!({"resource": r, "columns": [""]})).is_err());
        assert!(validate(&json!({"resource": "t"})).is_err());
    }
}
