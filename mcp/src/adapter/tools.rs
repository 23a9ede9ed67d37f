//! The four tools' fixed definitions (names, descriptions, small input schemas). `tools/list`
//! answers from these alone, without calling the service.

use std::sync::Arc;

use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use serde_json::{json, Value};

/// The tool names, in list order.
pub const NAMES: [&str; 4] = ["rho_index", "rho_resolve", "rho_call", "rho_read"];

fn schema(v: Value) -> Arc<JsonObject> {
    match v {
        Value::Object(m) => Arc::new(m),
        _ => Arc::new(JsonObject::new()),
    }
}

fn max_bytes() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": 65536, "description": "Reply budget in bytes (default 16384, at most 65536)."})
}

/// The four tool definitions.
pub fn definitions() -> Vec<Tool> {
    vec![
        Tool::new(
            "rho_index",
            "Discover this project's Rho capabilities in small pages. The first page states the grant's scope (project, session, profile, expiry, method count) and owner summaries; pass `owner` or `search` for operations (20 per page) with immutable contract and skill refs. Then call rho_resolve for the operations you need.",
            schema(json!({
                "type": "object", "additionalProperties": false,
                "properties": {
                    "owner": {"type": "string", "description": "List this owner's operations."},
                    "search": {"type": "string", "description": "Find operations by words."},
                    "cursor": {"type": "string", "description": "nextCursor of the previous page."},
                    "maxBytes": max_bytes(),
                },
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "rho_resolve",
            "Fetch full contracts (input schema, effect, errors) and the owners' skills for up to 16 operations, as whole objects paged by maxBytes. Name bodies you still hold in knownRefs (at most 128) to omit them. rho_call needs the operation's contract and skill resolved first.",
            schema(json!({
                "type": "object", "additionalProperties": false, "required": ["operations"],
                "properties": {
                    "operations": {"type": "array", "items": {"type": "string"}, "maxItems": 16},
                    "knownRefs": {"type": "array", "items": {"type": "string"}, "maxItems": 128},
                    "cursor": {"type": "string"},
                    "maxBytes": max_bytes(),
                },
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(true)),
        Tool::new(
            "rho_call",
            "Call one granted Rho operation with `input` matching its resolved contract (without projectId: the adapter adds the project). Replies over maxBytes come back as a retained `ref` to read with rho_read.",
            schema(json!({
                "type": "object", "additionalProperties": false, "required": ["operation", "input"],
                "properties": {
                    "operation": {"type": "string"},
                    "input": {"type": "object"},
                    "maxBytes": max_bytes(),
                },
            })),
        ),
        Tool::new(
            "rho_read",
            "Read a retained result by ref: a JSON pointer, a page {offset, limit} of an array or object, or a UTF-16 textRange {start, end} of a string; release:true drops it. Never runs the operation again.",
            schema(json!({
                "type": "object", "additionalProperties": false, "required": ["ref"],
                "properties": {
                    "ref": {"type": "string"},
                    "pointer": {"type": "string", "description": "RFC 6901 JSON pointer (\"\" is the whole result)."},
                    "page": {"type": "object", "additionalProperties": false, "required": ["offset", "limit"],
                             "properties": {"offset": {"type": "integer", "minimum": 0}, "limit": {"type": "integer", "minimum": 1}}},
                    "textRange": {"type": "object", "additionalProperties": false, "required": ["start", "end"],
                                  "properties": {"start": {"type": "integer", "minimum": 0}, "end": {"type": "integer", "minimum": 0}}},
                    "release": {"type": "boolean"},
                    "maxBytes": max_bytes(),
                },
            })),
        )
        .with_annotations(ToolAnnotations::new().read_only(false).destructive(false)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_small_fixed_tools() {
        let tools = definitions();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_ref()).collect();
        assert_eq!(names, NAMES);
        let bytes = serde_json::to_vec(&tools).unwrap().len();
        assert!(bytes < 8 * 1024, "tools/list stays small ({bytes} bytes)");
        for t in &tools {
            assert_eq!(t.input_schema["additionalProperties"], json!(false));
        }
    }
}
