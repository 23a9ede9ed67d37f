//! Contracts of the documents owner's operations (`document.*`).

pub mod history;

use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A UTF-16 range.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Range {
    pub start: u64,
    pub end: u64,
}

/// One replacement in UTF-16 code units of the `expectedVersion` text.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditSpec {
    pub start: u64,
    pub end: u64,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OpenRequest {
    pub project_id: String,
    /// Project-relative, `/`-separated.
    pub path: String,
    /// Open an empty buffer for a file that does not exist yet (the first save creates it).
    #[serde(default)]
    pub create: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct OpenReply {
    pub id: String,
    pub path: String,
    pub version: u64,
    /// UTF-16 code units.
    pub length: u64,
    /// SHA-256 of the bytes read (null for a file that does not exist yet).
    pub disk_digest: Option<String>,
    pub dirty: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    pub document_id: String,
    /// A UTF-16 range (never splitting a surrogate pair); default the whole text.
    pub range: Option<Range>,
    /// Pin a paged read to one version: `stale` if the buffer moved on.
    pub version: Option<u64>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct AuthorOut {
    pub version: u64,
    pub principal: String,
    pub time: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReadReply {
    pub version: u64,
    pub text: String,
    pub length: u64,
    pub dirty: bool,
    pub disk_digest: Option<String>,
    pub path: String,
    /// The last 10 transactions' authors.
    pub authors: Vec<AuthorOut>,
    /// The disk's digest (or `deleted`) when the file changed under unsaved changes.
    pub changed_on_disk: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EditRequest {
    pub project_id: String,
    pub document_id: String,
    pub expected_version: u64,
    pub change_id: String,
    pub edits: Vec<EditSpec>,
    /// A typing burst chosen by the writer (1 to 64 bytes): consecutive edits naming the same
    /// burst, by the same principal, with no other change between, are one `document.undo` step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burst: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UndoRequest {
    pub project_id: String,
    pub document_id: String,
    pub expected_version: u64,
    pub change_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionReply {
    pub version: u64,
    pub length: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SaveRequest {
    pub project_id: String,
    pub document_id: String,
    pub expected_version: u64,
    pub change_id: String,
    /// The current disk digest, to overwrite a file changed outside Rho deliberately.
    pub base_digest: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SaveReply {
    pub version: u64,
    pub disk_digest: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CloseRequest {
    pub project_id: String,
    pub document_id: String,
    pub change_id: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct CloseReply {
    pub version: u64,
}

pub(super) const fn op(
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
        owner: Some(Owner::Documents),
        needs: Needs::Owner,
        effect,
        callers: ANY,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: if matches!(effect, Effect::Write) {
            &["document.changed"]
        } else {
            &[]
        },
    }
}

/// The documents owner's operations.
pub const OPERATIONS: &[OperationSpec] = &[
    op("document.open", Effect::Write, "Open the one shared buffer of a project file (UTF-8; create: true for a new file).", schema::<OpenRequest>, schema::<OpenReply>, &["invalid", "not_found", "limit", "unavailable"]),
    op("document.read", Effect::Read, "A buffer's text or a UTF-16 range of it, pinned to a version, with its authors.", schema::<ReadRequest>, schema::<ReadReply>, &["invalid", "not_found", "stale", "limit"]).retained(),
    op("document.edit", Effect::Write, "One conditional transaction of non-overlapping UTF-16 edits of the expectedVersion text.", schema::<EditRequest>, schema::<VersionReply>, &["invalid", "not_found", "stale", "conflict", "limit"]),
    op("document.undo", Effect::Write, "Revert the newest not-yet-undone transaction (any author) as a new version.", schema::<UndoRequest>, schema::<VersionReply>, &["invalid", "not_found", "stale", "conflict"]),
    op("document.save", Effect::Write, "Write the buffer to its file (checked against the disk digest; temp, fsync, rename, directory fsync).", schema::<SaveRequest>, schema::<SaveReply>, &["not_found", "stale", "conflict", "unavailable"]),
    op("document.close", Effect::Write, "Close a buffer without unsaved changes, dropping its undo history.", schema::<CloseRequest>, schema::<CloseReply>, &["not_found", "conflict"]).retained(),
];
