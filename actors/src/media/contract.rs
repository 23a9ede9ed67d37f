//! Wire contract of owner Media: `media.describe`.

use crate::contract::{schema, Effect, Needs, OperationSpec, ANY};
use crate::files::contract::ResourceRef;
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// `media.describe`: the format and size of a registered PNG, JPEG, SVG or PDF version.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescribeRequest {
    pub project_id: String,
    pub resource: ResourceRef,
}

/// One PDF page's MediaBox size in points.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct PageSize {
    pub width: f64,
    pub height: f64,
}

/// `media.describe` reply. Rasters and SVG are in `px`, PDF in `pt` (the first page's size,
/// with every page under `pages`). An SVG without absolute `width`/`height` has them null and
/// reports its `viewBox` (`[minX, minY, width, height]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct DescribeReply {
    /// `png`, `jpeg`, `svg` or `pdf`.
    pub format: String,
    pub width: Option<f64>,
    pub height: Option<f64>,
    /// `px` or `pt`.
    pub units: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pages: Option<Vec<PageSize>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view_box: Option<[f64; 4]>,
}

/// Operations of owner Media.
pub const OPERATIONS: &[OperationSpec] = &[OperationSpec {
    name: "media.describe",
    version: "0.2.0",
    owner: Some(Owner::Media),
    needs: Needs::Owner,
    effect: Effect::Read,
    callers: ANY,
    project_scoped: true,
    summary: "The format and size of a registered PNG (IHDR), JPEG (SOFn; EXIF orientation not applied), SVG (absolute width/height, else null with the viewBox) or PDF (each page's MediaBox in points), read from the version's exact bytes.",
    request: schema::<DescribeRequest>,
    response: schema::<DescribeReply>,
    errors: &["invalid", "not_found", "stale", "limit", "unavailable"],
    events: &[],
}];
