//! Contracts of `context.create` and `context.read` (owner: agent; each kind needs only the owner of its source).

pub mod list;

use crate::contract::{reply, schema, Effect, Needs, OperationSpec, ANY};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RangeSpec {
    pub start: u64,
    pub end: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BufferSpec {
    pub document_id: String,
    pub version: u64,
    pub range: RangeSpec,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EntitiesSpec {
    pub namespace: String,
    pub keys: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResourceRef {
    pub id: String,
    pub version: u64,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Rect {
    pub x: f64,
    pub y: f64,
    pub width: f64,
    pub height: f64,
}

/// A rectangle of one page of a media resource, in `px` (PNG, JPEG, SVG) or `pt` (PDF). The
/// origin is the page's top-left corner as it is displayed, `x` to the right and `y` downwards;
/// for a PDF that is the top-left of the page size `media.describe` gives, not PDF user space
/// (whose origin is bottom-left). Pages count from 1 (an image has one page).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MediaSpec {
    pub resource: ResourceRef,
    pub page: u64,
    pub units: String,
    pub rect: Rect,
}

/// Exactly one of `buffer`, `entities`, `media`, `run` (CONVENTIONS, the context union).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateRequest {
    pub project_id: String,
    pub change_id: String,
    pub buffer: Option<BufferSpec>,
    pub entities: Option<EntitiesSpec>,
    /// A media rectangle (needs the media owner).
    pub media: Option<MediaSpec>,
    /// One retained managed run `{operationId}`: its state, exit, stop, stderr tail, script, args, declared files.
    pub run: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ReadRequest {
    pub project_id: String,
    pub context_id: String,
}

/// A UTF-16 range as a context froze it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RangeView {
    pub end: u64,
    pub start: u64,
}

/// A frozen buffer range, with its text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct BufferContext {
    pub document_id: String,
    pub path: String,
    pub range: RangeView,
    pub text: String,
    pub version: u64,
}

/// Declared entities: a namespace and its keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct EntitiesContext {
    pub keys: Vec<String>,
    pub namespace: String,
}

/// A rectangle in `units`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RectView {
    pub height: f64,
    pub width: f64,
    pub x: f64,
    pub y: f64,
}

/// A frozen rectangle of one page of a media resource version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MediaContext {
    pub format: String,
    pub page: u64,
    pub rect: RectView,
    pub resource: ResourceRef,
    /// `px` or `pt`.
    pub units: String,
}

/// A frozen context: `context.create` and `context.read`. Exactly one of `buffer`, `entities`,
/// `media`, `run` is present. Fields are in wire-name order (the bytes of the sorted map).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ContextView {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub buffer: Option<BufferContext>,
    pub context_id: String,
    /// The principal that froze it.
    pub created_by: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub entities: Option<EntitiesContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media: Option<MediaContext>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run: Option<crate::runs::contract::RunContextView>,
    /// RFC 3339 UTC, milliseconds.
    pub time: String,
}

pub const OPERATIONS: &[OperationSpec] = &[
    OperationSpec {
        name: "context.create",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        needs: Needs::Owner,
        effect: Effect::Write,
        callers: ANY,
        project_scoped: true,
        summary: "Freeze a context: an exact buffer version and range, declared entities, a media rectangle (px or pt, origin top-left, y down), or one run.",
        request: schema::<CreateRequest>,
        response: reply::<ContextView>,
        errors: &["invalid", "not_found", "stale", "limit", "unavailable", "conflict"],
        events: &[],
    },
    OperationSpec {
        name: "context.read",
        version: "1.0.0",
        owner: Some(Owner::Agent),
        needs: Needs::Retained,
        effect: Effect::Read,
        callers: ANY,
        project_scoped: true,
        summary: "Read a frozen context.",
        request: schema::<ReadRequest>,
        response: reply::<ContextView>,
        errors: &["invalid", "not_found"],
        events: &[],
    },
];
