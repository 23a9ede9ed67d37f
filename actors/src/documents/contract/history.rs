//! Contracts of the documents owner's reads of a buffer's past: `document.changes` (catch-up),
//! `document.history` (the list of versions) and `document.revision` (a past version's text).

use super::{op, EditSpec, Range};
use crate::contract::{schema, Effect, OperationSpec};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangesRequest {
    pub project_id: String,
    pub document_id: String,
    /// The version the caller has: changes above it are listed, oldest first.
    pub since: u64,
}

/// One version of a buffer, as `document.changed` carries it.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeOut {
    /// The version this change made (a save names the version it wrote).
    pub version: u64,
    /// The version `edits` apply to.
    pub base_version: u64,
    /// `open`, `edit`, `undo`, `save` or `close`.
    pub kind: String,
    pub author: String,
    pub time: String,
    pub change_id: Option<String>,
    /// UTF-16 edits of the base version's text, ascending; null when over the size bound or for
    /// an open (read the text instead).
    pub edits: Option<Vec<EditSpec>>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangesReply {
    pub changes: Vec<ChangeOut>,
    /// False when the reply's byte bound cut the list: ask again from the last version listed.
    pub complete: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HistoryRequest {
    pub project_id: String,
    pub document_id: String,
    /// List versions below this one (paging back); default from the newest.
    pub before: Option<u64>,
    /// At most this many versions (default and maximum 200).
    pub limit: Option<u64>,
}

/// One past version: who made it, when, and how.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct VersionOut {
    pub version: u64,
    /// `open`, `edit`, `undo` or `save`.
    pub kind: String,
    pub author: String,
    pub time: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct HistoryReply {
    /// Newest first.
    pub versions: Vec<VersionOut>,
    /// Older versions exist: ask with `before` set to the last version listed.
    pub more: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RevisionRequest {
    pub project_id: String,
    pub document_id: String,
    /// A version that changed the text (`open`, `edit` or `undo` in `document.history`).
    pub version: u64,
    /// A UTF-16 range of that version's text (never splitting a surrogate pair); default all.
    pub range: Option<Range>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RevisionReply {
    pub version: u64,
    pub text: String,
    /// UTF-16 length of the whole version.
    pub length: u64,
    pub path: String,
}

/// The reads of a buffer's past, served from the journal whatever is selected.
pub const OPERATIONS: &[OperationSpec] = &[
    op("document.changes", Effect::Read, "A buffer's changes after a version from the journal (kind, base, author, UTF-16 edits), for catching up.", schema::<ChangesRequest>, schema::<ChangesReply>, &["invalid", "not_found"]).retained(),
    op("document.history", Effect::Read, "A buffer's past versions from the journal (author, time, kind), newest first, paged.", schema::<HistoryRequest>, schema::<HistoryReply>, &["invalid", "not_found"]).retained(),
    op("document.revision", Effect::Read, "The text of a past version of a buffer (or a UTF-16 range of it), from the journal.", schema::<RevisionRequest>, schema::<RevisionReply>, &["invalid", "not_found", "limit"]).retained(),
];
