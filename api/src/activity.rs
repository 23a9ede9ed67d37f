//! Recording Agent calls: the `ActivitySink` the edge hands every call by an `agent:` principal to, and the ids a record keeps.
//!
//! A record keeps the method, time, outcome, refusal code and the ids named by the request and
//! the reply; never inputs, messages or tokens. The sink appends it off the reply path.

use rho_actors::agent::Activity;
use serde_json::Value;
use std::collections::BTreeMap;
use uuid::Uuid;

/// Where Agent calls are recorded (the project's journal in a running service).
pub trait ActivitySink: Send + Sync {
    /// Records `activity` in project `project` without blocking the caller.
    fn record(&self, project: Uuid, activity: Activity);
}

/// Records nothing (tests of the edge alone).
#[derive(Debug, Clone, Copy, Default)]
pub struct NoActivity;

impl ActivitySink for NoActivity {
    fn record(&self, _project: Uuid, _activity: Activity) {}
}

/// Id fields a record keeps from the request and the reply (top-level strings only).
pub const ID_FIELDS: &[&str] = &[
    "documentId",
    "operationId",
    "changeId",
    "contextId",
    "resourceId",
    "bindingId",
    "exportId",
    "observationId",
    "id",
];

/// Copies the id fields of a JSON object into `ids` (first seen wins; at most 128 bytes each).
pub fn collect_ids(value: &Value, ids: &mut BTreeMap<String, String>) {
    let Some(map) = value.as_object() else { return };
    for field in ID_FIELDS {
        if let Some(Value::String(s)) = map.get(*field) {
            if s.len() <= 128 && !ids.contains_key(*field) {
                ids.insert((*field).to_string(), s.clone());
            }
        }
    }
}

/// The ids of a request body and a reply envelope's `value`.
pub fn ids_of(request: Option<&[u8]>, reply: Option<&[u8]>) -> BTreeMap<String, String> {
    let mut ids = BTreeMap::new();
    if let Some(body) = request {
        if let Ok(v) = serde_json::from_slice::<Value>(body) {
            collect_ids(&v, &mut ids);
        }
    }
    if let Some(envelope) = reply {
        if let Ok(v) = serde_json::from_slice::<Value>(envelope) {
            collect_ids(&v["value"], &mut ids);
        }
    }
    ids
}

/// A method name as recorded (bounded; a name is not an input, but a caller chooses it).
pub fn method_name(name: &str) -> String {
    name.chars().take(128).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_request_and_reply_never_other_fields() {
        let req = br#"{"projectId":"p","documentId":"d1","changeId":"c1","text":"secret","edits":[{"id":"x"}]}"#;
        let reply = br#"{"apiVersion":"2.0","ok":true,"value":{"id":"d1","version":3,"documentId":"other"}}"#;
        let ids = ids_of(Some(req), Some(reply));
        assert_eq!(ids["documentId"], "d1");
        assert_eq!(ids["changeId"], "c1");
        assert_eq!(ids["id"], "d1");
        assert!(!ids.values().any(|v| v == "secret" || v == "x"));
        assert_eq!(ids.len(), 3);
    }
}
