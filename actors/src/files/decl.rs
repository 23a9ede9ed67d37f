//! The table and media declarations a resource carries, stored by Files as given (shape only).
//!
//! Files has no format registry: it keeps the declaration's shape; Tables and Media validate
//! its meaning when they read the resource.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `table:{format, columns, key}` as the caller declared it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TableDecl {
    /// `csv` or `json-rows`.
    pub format: String,
    pub columns: Vec<ColumnDecl>,
    /// The entity key column and its namespace; `null` reads the table unkeyed.
    #[serde(default)]
    pub key: Option<KeyDecl>,
}

/// One declared column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ColumnDecl {
    pub name: String,
    /// `string`, `integer`, `number`, `boolean`, `date` or `datetime`.
    #[serde(rename = "type")]
    pub column_type: String,
    /// Exact cell texts that mean missing for this column (e.g. `["NA", ""]`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub missing: Option<Vec<String>>,
}

/// The key column of a keyed table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct KeyDecl {
    pub column: String,
    pub namespace: String,
}

/// `media:{format}` as the caller declared it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MediaDecl {
    /// `png`, `jpeg`, `svg` or `pdf`.
    pub format: String,
}
