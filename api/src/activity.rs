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

/// The id fields of one object; everything else is skipped without being kept.
#[derive(Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct IdFields {
    document_id: Option<Value>,
    operation_id: Option<Value>,
    change_id: Option<Value>,
    context_id: Option<Value>,
    resource_id: Option<Value>,
    binding_id: Option<Value>,
    export_id: Option<Value>,
    observation_id: Option<Value>,
    id: Option<Value>,
}

impl IdFields {
    fn into_ids(self, ids: &mut BTreeMap<String, String>) {
        let fields = [
            self.document_id,
            self.operation_id,
            self.change_id,
            self.context_id,
            self.resource_id,
            self.binding_id,
            self.export_id,
            self.observation_id,
            self.id,
        ];
        for (name, value) in ID_FIELDS.iter().zip(fields) {
            if let Some(Value::String(s)) = value {
                if s.len() <= 128 && !ids.contains_key(*name) {
                    ids.insert((*name).to_string(), s);
                }
            }
        }
    }
}

#[derive(serde::Deserialize)]
struct Envelope {
    #[serde(default)]
    value: Option<IdFields>,
}

/// The ids of a request body and a reply envelope's `value` (other fields are skipped, not
/// materialized: replies can be large).
pub fn ids_of(request: Option<&[u8]>, reply: Option<&[u8]>) -> BTreeMap<String, String> {
    let mut ids = BTreeMap::new();
    if let Some(body) = request {
        if let Ok(f) = serde_json::from_slice::<IdFields>(body) {
            f.into_ids(&mut ids);
        }
    }
    if let Some(envelope) = reply {
        if let Ok(Envelope { value: Some(f) }) = serde_json::from_slice::<Envelope>(envelope) {
            f.into_ids(&mut ids);
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
