//! Wire contracts of owner r's managed execution: `action.submit/lookup/observe/output/list/retry/cancel`.

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
use crate::owners::Owner;
use crate::requirements::contract::RequirementDecl;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

mod replies;
pub use replies::*;

/// The script of an `r.execute` input: saved bytes checked against a digest, or one buffer version.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    deny_unknown_fields
)]
pub enum ScriptInput {
    Disk { path: String, digest: String },
    Buffer { document_id: String, version: u64 },
}

/// A resource argument `{resource:{id, version}}`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceArg {
    pub resource: crate::files::contract::ResourceRef,
}

/// One trailing argument after the output directory.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ArgInput {
    Literal(String),
    Resource(ResourceArg),
}

/// One declared artifact (inside the output directory).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactInput {
    pub path: String,
    pub kind: String,
    pub format: String,
}

/// The input of `r.execute` 0.2.0.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExecuteInput {
    pub script: ScriptInput,
    #[serde(default)]
    pub args: Vec<ArgInput>,
    #[serde(default)]
    pub requirements: Vec<RequirementDecl>,
    #[serde(default)]
    pub artifacts: Vec<ArtifactInput>,
    /// A file name beside the run's artifacts directory, or null.
    #[serde(default)]
    pub completion: Option<String>,
    /// A Slurm place of the project (`kernel.places`) the run goes to; null: this machine's
    /// Core Host.
    #[serde(default)]
    pub place: Option<String>,
}

/// `action.submit`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SubmitRequest {
    pub project_id: String,
    pub operation_id: String,
    /// Only `r.execute`.
    pub action: String,
    /// Only `0.2.0`.
    pub action_version: String,
    pub input: ExecuteInput,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub repair_of: Option<String>,
}

/// `action.lookup`, `action.observe`, `action.retry`, `action.cancel`, `artifact.check`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunRequest {
    pub project_id: String,
    pub operation_id: String,
}

/// `action.output`: one page of a captured stream.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputRequest {
    pub project_id: String,
    pub operation_id: String,
    /// `stdout` or `stderr`.
    pub stream: String,
    #[serde(default)]
    pub offset: Option<u64>,
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

/// `action.export`: one run as ordinary files in a new project folder.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ExportRequest {
    pub project_id: String,
    pub operation_id: String,
    pub export_id: String,
    /// Default `exports/<operationId>`; must not exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// `include` or `leave`; required when the script has unsaved editor changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unsaved: Option<String>,
}

/// `action.list`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListRequest {
    pub project_id: String,
}

const fn op(
    name: &'static str,
    effect: Effect,
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "1.0.0",
        owner: Some(Owner::R),
        needs: Needs::Owner,
        effect,
        callers: ANY,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &["run.changed"],
    }
}

/// `o` with the events it names replaced.
const fn with_events(mut o: OperationSpec, events: &'static [&'static str]) -> OperationSpec {
    o.events = events;
    o
}

pub const OPERATIONS: &[OperationSpec] = &[
    op("action.submit", Effect::Write,
        "Submit r.execute 0.2.0 under a project-wide operationId: code, args, requirements and declarations are frozen and journaled before delivery to the project's Core Host; the reply is the run record with its plan.",
        schema::<SubmitRequest>, reply::<RunView>, &["invalid", "not_found", "conflict", "stale", "limit", "unavailable", "unknown"]),
    op("action.lookup", Effect::Read, "The retained record of one run (any principal of the project).",
        schema::<RunRequest>, reply::<RunView>, &["invalid", "not_found"]).retained(),
    op("action.observe", Effect::Read, "The run record with the Host's current facts; never starts a Host (no Host: execution unknown, stored facts unchanged).",
        schema::<RunRequest>, reply::<RunView>, &["invalid", "not_found"]).retained(),
    with_events(op("action.output", Effect::Read, "One page (at most 64 KiB, base64) of a run's captured stdout or stderr: {bytes, nextOffset, truncated}. While a run runs, `run.output {operationId, stream, length}` announces each stream's growth (at most every 250 ms).",
        schema::<OutputRequest>, reply::<OutputPage>, &["invalid", "not_found", "limit"]), &["run.changed", "run.output"]).retained(),
    op("action.list", Effect::Read, "Every retained run of the project.",
        schema::<ListRequest>, reply::<RunListReply>, &["invalid", "not_found"]).retained(),
    op("action.retry", Effect::Write, "Submitter only: deliver a not-sent run again with its original frozen code and Core; a sent or unknown run returns its record.",
        schema::<RunRequest>, reply::<RunView>, &["invalid", "not_found", "forbidden", "conflict", "limit", "unavailable", "unknown"]).retained(),
    op("action.cancel", Effect::Write, "Stop a run (submitter, or a local/paired principal): SIGTERM to its process group, SIGKILL after r.stopGraceMs; confirmed by observing its end.",
        schema::<RunRequest>, reply::<RunView>, &["invalid", "not_found", "forbidden", "unavailable"]).retained(),
    OperationSpec {
        name: "artifact.check",
        version: "1.0.0",
        owner: Some(Owner::Files),
        needs: Needs::Owner,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Verify exactly a run's declared files against its completion declaration (bytes, SHA-256): {complete, partial, completion:{present, valid, complete}, files}. Never interprets content.",
        request: schema::<RunRequest>,
        response: reply::<CheckReply>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
    OperationSpec {
        name: "action.export",
        version: "1.0.0",
        owner: Some(Owner::R),
        needs: Needs::Only(&[Owner::Files]),
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Export one ended run into a new folder (default exports/<operationId>): script/, outputs/, provenance.json, PROVENANCE.md; partial when a declared file is missing or changed. Runs nothing; exportId idempotent.",
        request: schema::<ExportRequest>,
        response: reply::<ExportReply>,
        errors: &["invalid", "not_found", "conflict", "unavailable"],
        events: &[],
    },
];
