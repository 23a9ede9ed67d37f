//! Every successful reply a test receives is checked against its operation's published response schema.
//!
//! [`check_reply`] runs inside the one HTTP client, so each test that calls an operation also
//! proves that the reply it got is described by `protocol/`. The replies that were built as
//! JSON maps before they had types are also checked to keep the bytes of a sorted map.

use rho_actors::contract::registry;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Operations whose reply bytes were a sorted JSON map before they had types (issue 12):
/// their typed replies must still serialize with sorted keys at every depth.
/// (`observation.snapshot` is not listed: its fixed facts are spliced in after the rest.)
pub const SORTED_REPLIES: &[&str] = &[
    "action.cancel",
    "action.export",
    "action.list",
    "action.lookup",
    "action.observe",
    "action.output",
    "action.retry",
    "action.submit",
    "artifact.check",
    "binding.activity",
    "context.create",
    "context.read",
    "requirements.check",
    "requirements.prepare",
    "session.connect",
];

static VALIDATORS: Mutex<Option<HashMap<String, Arc<jsonschema::Validator>>>> = Mutex::new(None);

fn validator(op: &str) -> Option<Arc<jsonschema::Validator>> {
    let mut cache = VALIDATORS.lock().unwrap_or_else(|e| e.into_inner());
    let cache = cache.get_or_insert_with(HashMap::new);
    if let Some(v) = cache.get(op) {
        return Some(v.clone());
    }
    let spec = registry::find(op)?;
    let schema = serde_json::to_value((spec.response)()).unwrap();
    let v =
        Arc::new(jsonschema::validator_for(&schema).unwrap_or_else(|e| {
            panic!("{op}: the published response schema does not compile: {e}")
        }));
    cache.insert(op.to_string(), v.clone());
    Some(v)
}

/// Whether every object in `v`'s text has its keys in sorted order (as a `serde_json::Value`
/// map writes them).
pub fn keys_sorted(body: &[u8]) -> bool {
    match serde_json::from_slice::<Value>(body) {
        Ok(v) => serde_json::to_vec(&v).is_ok_and(|canonical| canonical == body),
        Err(_) => false,
    }
}

/// Panics when a successful reply of `POST /api/v2/{op}` does not validate against the
/// operation's published response schema (or, for [`SORTED_REPLIES`], is not a sorted map).
pub fn check_reply(method: &str, path: &str, status: u16, body: &[u8]) {
    let Some(op) = path.strip_prefix("/api/v2/") else {
        return;
    };
    if method != "POST" || status != 200 || op.contains(['/', '?']) {
        return;
    }
    let Ok(envelope) = serde_json::from_slice::<Value>(body) else {
        return;
    };
    if envelope["ok"] != true {
        return;
    }
    let Some(v) = validator(op) else {
        return;
    };
    let value = &envelope["value"];
    if let Some(e) = v.iter_errors(value).next() {
        panic!(
            "{op}: the reply does not match its published response schema at {}: {e}\nreply: {value}",
            e.instance_path()
        );
    }
    if SORTED_REPLIES.contains(&op) {
        assert!(
            keys_sorted(body),
            "{op}: the reply's keys are no longer in sorted order (the bytes changed): {}",
            String::from_utf8_lossy(body)
        );
    }
}
