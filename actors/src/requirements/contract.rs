//! Wire contracts of owner Requirements: `requirements.check` and `requirements.prepare`.

use crate::contract::{schema, Effect, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One declared package.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RequirementDecl {
    /// An R package name.
    pub package: String,
    /// `cran` or `bioconductor`.
    pub source: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum_version: Option<String>,
}

impl RequirementDecl {
    /// The raw triple the model validates.
    pub fn raw(list: &[RequirementDecl]) -> Vec<(String, String, Option<String>)> {
        list.iter()
            .map(|r| {
                (
                    r.package.clone(),
                    r.source.clone(),
                    r.minimum_version.clone(),
                )
            })
            .collect()
    }
}

/// `requirements.check`: a bounded base-R probe of unique declarations.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CheckRequest {
    pub project_id: String,
    pub requirements: Vec<RequirementDecl>,
}

/// `requirements.prepare`: install what is missing or too old into `<project>/.rho/library`, then recheck.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PrepareRequest {
    pub project_id: String,
    pub change_id: String,
    pub requirements: Vec<RequirementDecl>,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "requirements.check",
        version: "1.0.0",
        owner: Some(Owner::Requirements),
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Probe base R (20 s, 1 MiB): R version, platform, library paths, time, and per package present (version, meetsMinimum) / missing / unknown. No Rscript: the probe is unknown.",
        request: schema::<CheckRequest>,
        response: schema::<serde_json::Value>,
        errors: &["invalid", "not_found", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "requirements.prepare",
        version: "1.0.0",
        owner: Some(Owner::Requirements),
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Install missing or too-old packages into the project library from the configured repositories (bounded, journaled), then recheck.",
        request: schema::<PrepareRequest>,
        response: schema::<serde_json::Value>,
        errors: &["invalid", "not_found", "conflict", "unavailable", "limit"],
        events: &[],
    },
];
