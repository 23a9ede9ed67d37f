//! The adapter's answers in the service's envelope shape: `{ok:true, value}` or `{ok:false, error}`.

use serde_json::{json, Value};

/// A refusal or failure in the envelope's error shape (`code`, `message`, `details`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Refusal {
    /// One of the wire codes of CONVENTIONS.md (`invalid`, `limit`, `unavailable`, ...).
    pub code: String,
    /// A sentence naming the problem.
    pub message: String,
    /// Code-specific details (`{limit, value}`, `{field, reason}`, ...).
    pub details: Value,
}

impl Refusal {
    /// A refusal with a code, a message and details.
    pub fn new(code: &str, message: impl Into<String>, details: Value) -> Self {
        Self {
            code: code.to_string(),
            message: message.into(),
            details,
        }
    }

    /// `invalid` naming the field and the reason.
    pub fn invalid(field: &str, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::new(
            "invalid",
            format!("{field}: {reason}"),
            json!({"field": field, "reason": reason}),
        )
    }

    /// `limit` naming the limit key and its value.
    pub fn limit(key: &str, value: u64, message: impl Into<String>) -> Self {
        Self::new("limit", message, json!({"limit": key, "value": value}))
    }

    /// `unavailable` for a service that cannot be reached.
    pub fn unreachable(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self::new(
            "unavailable",
            "the Rho service cannot be reached; try again when it runs (the connection file is re-read)",
            json!({"missing": ["service"], "reason": reason}),
        )
    }

    /// `not_found` for a thing the adapter does not hold.
    pub fn not_found(what: impl Into<String>) -> Self {
        let what = what.into();
        Self::new(
            "not_found",
            format!("{what} not found"),
            json!({"what": what}),
        )
    }

    /// Adds one key to the details object.
    pub fn with_detail(mut self, key: &str, value: Value) -> Self {
        if !self.details.is_object() {
            self.details = json!({});
        }
        if let Some(map) = self.details.as_object_mut() {
            map.insert(key.to_string(), value);
        }
        self
    }

    /// The error envelope `{ok:false, error:{code, message, details}}`.
    pub fn envelope(&self) -> Value {
        json!({"ok": false, "error": {"code": self.code, "message": self.message, "details": self.details}})
    }

    /// Reads the `error` object of a service envelope back into a refusal.
    pub fn from_error(error: &Value) -> Self {
        Self {
            code: error
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("internal")
                .to_string(),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            details: error.get("details").cloned().unwrap_or_else(|| json!({})),
        }
    }
}

/// The success envelope `{ok:true, value}`.
pub fn ok(value: Value) -> Value {
    json!({"ok": true, "value": value})
}
