//! Wire contracts of owner Requirements: `requirements.check` and `requirements.prepare`.

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
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

/// Whether a probe could tell anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum ProbeState {
    Complete,
    /// No Rscript, a timeout or a failure: every package is `unknown`.
    Unknown,
}

/// One declared package as the probe found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PackageStateView {
    Present,
    Missing,
    Unknown,
}

/// The probe's facts about one declared package. Fields of these replies are in wire-name
/// order (the bytes of the sorted map they replaced).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PackageView {
    /// Present packages only: whether `version` is at least the declared minimum.
    pub meets_minimum: Option<bool>,
    pub minimum_version: Option<String>,
    pub package: String,
    /// `cran` or `bioconductor`.
    pub source: String,
    pub state: PackageStateView,
    pub version: Option<String>,
}

/// The R the probe ran.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RFacts {
    pub library_paths: Vec<String>,
    pub platform: Option<String>,
    pub version: Option<String>,
}

/// `requirements.check` (and the recheck of `requirements.prepare`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeReply {
    pub packages: Vec<PackageView>,
    pub probe: ProbeState,
    pub r: RFacts,
    /// Why the probe is unknown.
    pub reason: Option<String>,
    /// Complete, and every package present and new enough.
    pub satisfied: bool,
    /// RFC 3339 UTC, milliseconds.
    pub time: String,
}

/// `requirements.prepare`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PrepareReply {
    /// Packages handed to `install.packages`.
    pub attempted: Vec<String>,
    pub change_id: String,
    /// The probe after installing (`null` when a crash interrupted the preparation).
    pub check: Option<ProbeReply>,
    /// The installer's exit code (`null`: not run, or ended by a signal or a bound).
    pub exit_code: Option<i32>,
    pub interrupted: bool,
    /// The last bytes of the installer's output.
    pub log: String,
    pub satisfied: bool,
    /// `timeout` or `output-limit` when a bound stopped the installer.
    pub stopped_by: Option<String>,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "requirements.check",
        version: "1.0.0",
        owner: Some(Owner::Requirements),
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Probe base R (20 s, 1 MiB): R version, platform, library paths, time, and per package present (version, meetsMinimum) / missing / unknown. No Rscript: the probe is unknown.",
        request: schema::<CheckRequest>,
        response: reply::<ProbeReply>,
        errors: &["invalid", "not_found", "unavailable"],
        events: &[],
    },
    OperationSpec {
        name: "requirements.prepare",
        version: "1.0.0",
        owner: Some(Owner::Requirements),
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Install missing or too-old packages into the project library from the configured repositories (bounded, journaled), then recheck. While it works, `requirements.progress {changeId, phase, packages}` announces each phase: checking, installing, rechecking, finished.",
        request: schema::<PrepareRequest>,
        response: reply::<PrepareReply>,
        errors: &["invalid", "not_found", "conflict", "unavailable", "limit"],
        events: &["requirements.progress"],
    },
];
