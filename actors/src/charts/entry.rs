//! The `rho.scatter` UI entry of owner Charts and its props validation: explicit numeric x/y and an entity key.

use crate::contract::entry::{check_resource, parse_props, EntrySpec};
use crate::contract::schema;
use crate::error::ActorError;
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;

/// One plotted axis: a column and its declared numeric type (`integer` or `number`).
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Axis {
    pub column: String,
    #[serde(rename = "type")]
    pub column_type: String,
}

/// The entity key of the plotted rows.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntityKey {
    pub column: String,
    pub namespace: String,
}

/// Props of `rho.scatter`: nothing is inferred; axes and key are named explicitly.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScatterProps {
    pub resource: ResourceRef,
    pub x: Axis,
    pub y: Axis,
    pub key: EntityKey,
}

fn validate(props: &Value) -> Result<(), ActorError> {
    let p: ScatterProps = parse_props(props)?;
    check_resource("props.resource", &p.resource)?;
    for (field, axis) in [("props.x", &p.x), ("props.y", &p.y)] {
        if axis.column.is_empty() {
            return Err(ActorError::invalid(field, "name the plotted column"));
        }
        if !matches!(axis.column_type.as_str(), "integer" | "number") {
            return Err(ActorError::invalid(
                field,
                "a scatter axis is an integer or number column",
            ));
        }
    }
    if p.key.column.is_empty() || p.key.namespace.is_empty() {
        return Err(ActorError::invalid(
            "props.key",
            "a scatter names its entity key column and namespace",
        ));
    }
    Ok(())
}

/// `rho.scatter`.
pub const ENTRY: EntrySpec = EntrySpec {
    name: "rho.scatter",
    version: "0.2.0",
    owner: Owner::Charts,
    summary: "A scatter of two numeric columns of a keyed table (points from data.plot); x, y and the entity key are explicit props. The browser app draws it (uPlot) with brush and typed-range selection linked by key.",
    browser_renderer: true,
    props: schema::<ScatterProps>,
    validate,
};

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn props() -> Value {
        json!({"resource": {"id": "r", "version": 2},
            "x": {"column": "a", "type": "integer"}, "y": {"column": "b", "type": "number"},
            "key": {"column": "id", "namespace": "gene"}})
    }

    #[test]
    fn scatter_needs_numeric_axes_and_a_key() {
        assert!(validate(&props()).is_ok());
        let mut p = props();
        p["x"]["type"] = json!("string");
        assert!(
            matches!(validate(&p), Err(ActorError::Invalid { field: Some(f), .. }) if f == "props.x")
        );
        let mut p = props();
        p.as_object_mut().unwrap().remove("key");
        assert!(validate(&p).is_err());
        let mut p = props();
        p["key"]["namespace"] = json!("");
        assert!(validate(&p).is_err());
        let mut p = props();
        p["y"] = json!({"column": "b"});
        assert!(validate(&p).is_err());
    }
}
