//! The wire envelope: `ApiError` (stable code, message, details), its HTTP status, and the success/error bodies.

use actix_web::http::{header, StatusCode};
use actix_web::{HttpResponse, ResponseError};
use rho_actors::ActorError;
use serde_json::{json, Map, Value};
use std::fmt;

/// The API version every envelope carries.
pub const API_VERSION: &str = "2.0";

/// The stable error codes of CONVENTIONS, "The envelope and errors".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Invalid,
    Unauthorized,
    Forbidden,
    NotFound,
    Conflict,
    Stale,
    Expired,
    Limit,
    Unavailable,
    Unknown,
    Internal,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::Invalid => "invalid",
            Code::Unauthorized => "unauthorized",
            Code::Forbidden => "forbidden",
            Code::NotFound => "not_found",
            Code::Conflict => "conflict",
            Code::Stale => "stale",
            Code::Expired => "expired",
            Code::Limit => "limit",
            Code::Unavailable => "unavailable",
            Code::Unknown => "unknown",
            Code::Internal => "internal",
        }
    }

    /// The HTTP status of the code (a body over `maxRequestBytes` overrides `limit` with 413).
    pub fn status(self) -> StatusCode {
        match self {
            Code::Invalid => StatusCode::BAD_REQUEST,
            Code::Unauthorized => StatusCode::UNAUTHORIZED,
            Code::Forbidden => StatusCode::FORBIDDEN,
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::Conflict | Code::Stale => StatusCode::CONFLICT,
            Code::Expired => StatusCode::GONE,
            Code::Limit => StatusCode::TOO_MANY_REQUESTS,
            Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
            Code::Unknown => StatusCode::BAD_GATEWAY,
            Code::Internal => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// One refusal or failure as the wire shows it.
///
/// For `internal`, `message` and `details` are replaced on the wire by a generic message and
/// `details.requestId`; the real detail (kept in `hidden`) goes only to the log.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    pub code: Code,
    pub message: String,
    /// Always an object on the wire.
    pub details: Value,
    /// A status other than the code's (413 for an oversized body, 405 for a wrong method).
    pub status: Option<StatusCode>,
    hidden: Option<String>,
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for ApiError {}

impl ApiError {
    pub fn new(code: Code, message: impl Into<String>, details: Value) -> Self {
        let details = match details {
            Value::Object(_) => details,
            _ => Value::Object(Map::new()),
        };
        ApiError {
            code,
            message: message.into(),
            details,
            status: None,
            hidden: None,
        }
    }

    pub fn invalid(field: Option<&str>, reason: impl Into<String>) -> Self {
        let reason = reason.into();
        let mut d = Map::new();
        if let Some(f) = field {
            d.insert("field".into(), json!(f));
        }
        d.insert("reason".into(), json!(reason));
        ApiError::new(Code::Invalid, reason, Value::Object(d))
    }
    pub fn unauthorized(message: impl Into<String>) -> Self {
        ApiError::new(Code::Unauthorized, message, json!({}))
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        ApiError::new(Code::Forbidden, message, json!({}))
    }
    pub fn not_found(what: impl Into<String>) -> Self {
        ApiError::new(
            Code::NotFound,
            format!("{} not found", what.into()),
            json!({}),
        )
    }
    pub fn conflict(message: impl Into<String>, details: Value) -> Self {
        ApiError::new(Code::Conflict, message, details)
    }
    pub fn stale(message: impl Into<String>, details: Value) -> Self {
        ApiError::new(Code::Stale, message, details)
    }
    pub fn expired(message: impl Into<String>) -> Self {
        ApiError::new(Code::Expired, message, json!({}))
    }
    /// A `limit` refusal naming the limits key and its value.
    pub fn limit(key: &str, value: u64) -> Self {
        ApiError::new(
            Code::Limit,
            format!("limit {key} ({value}) reached"),
            json!({"limit": key, "value": value}),
        )
    }
    /// A body over `maxRequestBytes`: `limit`, HTTP 413.
    pub fn body_too_large(max: u64) -> Self {
        let mut e = ApiError::new(
            Code::Limit,
            format!("the request body is larger than maxRequestBytes ({max} bytes)"),
            json!({"limit": "maxRequestBytes", "value": max}),
        );
        e.status = Some(StatusCode::PAYLOAD_TOO_LARGE);
        e
    }
    pub fn unavailable(missing: &[&str], reason: impl Into<String>) -> Self {
        let reason = reason.into();
        ApiError::new(
            Code::Unavailable,
            reason.clone(),
            json!({"missing": missing, "reason": reason}),
        )
    }
    pub fn unknown(message: impl Into<String>) -> Self {
        ApiError::new(Code::Unknown, message, json!({}))
    }
    /// An internal fault: `detail` is logged with the request id, never sent.
    pub fn internal(detail: impl fmt::Display) -> Self {
        let mut e = ApiError::new(Code::Internal, "internal error", json!({}));
        e.hidden = Some(detail.to_string());
        e
    }

    /// The same error with another HTTP status.
    pub fn with_status(mut self, status: StatusCode) -> Self {
        self.status = Some(status);
        self
    }

    pub fn status_code(&self) -> StatusCode {
        self.status.unwrap_or_else(|| self.code.status())
    }

    /// The error body for the request `request_id`; an internal fault is logged here.
    pub fn body(&self, request_id: &str) -> Value {
        let (message, details) = if self.code == Code::Internal {
            tracing::error!(
                request_id,
                detail = self.hidden.as_deref().unwrap_or(&self.message),
                "internal error"
            );
            (
                format!(
                    "internal error; the service log has the detail under request id {request_id}"
                ),
                json!({"requestId": request_id}),
            )
        } else {
            (self.message.clone(), self.details.clone())
        };
        json!({
            "apiVersion": API_VERSION,
            "ok": false,
            "error": {"code": self.code.as_str(), "message": message, "details": details},
        })
    }

    /// The HTTP response for the request `request_id`.
    pub fn to_response(&self, request_id: &str) -> HttpResponse {
        HttpResponse::build(self.status_code())
            .insert_header((header::CONTENT_TYPE, "application/json"))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .body(self.body(request_id).to_string())
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        ApiError::status_code(self)
    }
    fn error_response(&self) -> HttpResponse {
        self.to_response(&new_request_id())
    }
}

impl From<ActorError> for ApiError {
    fn from(e: ActorError) -> Self {
        let message = e.to_string();
        match e {
            ActorError::Invalid {
                field,
                index,
                reason,
            } => {
                let mut d = Map::new();
                if let Some(f) = field {
                    d.insert("field".into(), json!(f));
                }
                if let Some(i) = index {
                    d.insert("index".into(), json!(i));
                }
                d.insert("reason".into(), json!(reason));
                ApiError::new(Code::Invalid, message, Value::Object(d))
            }
            ActorError::NotFound { .. } => ApiError::new(Code::NotFound, message, json!({})),
            ActorError::Conflict { existing_id, .. } => ApiError::new(
                Code::Conflict,
                message,
                existing_id.map_or_else(|| json!({}), |id| json!({"id": id})),
            ),
            ActorError::DiskChanged {
                base_digest,
                disk_digest,
                ..
            } => ApiError::new(
                Code::Conflict,
                message,
                json!({"baseDigest": base_digest, "diskDigest": disk_digest}),
            ),
            ActorError::Stale { current_version } => ApiError::new(
                Code::Stale,
                message,
                json!({"currentVersion": current_version}),
            ),
            ActorError::Limit { limit, value } => ApiError::new(
                Code::Limit,
                message,
                json!({"limit": limit, "value": value}),
            ),
            ActorError::Unavailable { missing, reason } => ApiError::new(
                Code::Unavailable,
                message,
                json!({"missing": missing, "reason": reason}),
            ),
            ActorError::Expired { .. } => ApiError::new(Code::Expired, message, json!({})),
            ActorError::Internal { reason } => ApiError::internal(reason),
        }
    }
}

/// A fresh request id (UUID v4).
pub fn new_request_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// The success body prefix; the value's JSON follows, then `}`.
pub(crate) const OK_PREFIX: &[u8] = br#"{"apiVersion":"2.0","ok":true,"value":"#;

/// A success response around already-serialized JSON of the value.
pub fn ok_bytes(value_json: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(OK_PREFIX.len() + value_json.len() + 1);
    out.extend_from_slice(OK_PREFIX);
    out.extend_from_slice(value_json);
    out.push(b'}');
    out
}

/// A JSON response with the given body bytes.
pub fn json_response(status: StatusCode, body: Vec<u8>) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, "application/json"))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body)
}

/// The envelope code for an HTTP error status produced outside our handlers (the safety net).
pub fn code_for_status(status: StatusCode) -> Code {
    match status.as_u16() {
        401 => Code::Unauthorized,
        403 => Code::Forbidden,
        404 => Code::NotFound,
        409 => Code::Conflict,
        410 => Code::Expired,
        413 | 429 => Code::Limit,
        502 => Code::Unknown,
        503 => Code::Unavailable,
        s if s >= 500 => Code::Internal,
        _ => Code::Invalid,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn actor_errors_map_to_codes_details_and_statuses() {
        let cases = [
            (
                ActorError::invalid("name", "empty"),
                400,
                json!({"field": "name", "reason": "empty"}),
            ),
            (
                ActorError::Stale { current_version: 7 },
                409,
                json!({"currentVersion": 7}),
            ),
            (
                ActorError::Limit {
                    limit: "maxQueue".into(),
                    value: 32,
                },
                429,
                json!({"limit": "maxQueue", "value": 32}),
            ),
            (
                ActorError::Unavailable {
                    missing: vec!["files".into()],
                    reason: "no files".into(),
                },
                503,
                json!({"missing": ["files"], "reason": "no files"}),
            ),
            (ActorError::Expired { reason: "x".into() }, 410, json!({})),
        ];
        for (actor, status, details) in cases {
            let e = ApiError::from(actor);
            assert_eq!(e.status_code().as_u16(), status);
            assert_eq!(e.body("r")["error"]["details"], details);
        }
    }

    #[test]
    fn internal_hides_its_detail() {
        let e = ApiError::from(ActorError::internal("/secret/path: EIO"));
        let body = e.body("req-1").to_string();
        assert!(!body.contains("secret"), "{body}");
        assert!(body.contains("req-1"));
        assert_eq!(e.status_code().as_u16(), 500);
    }

    #[test]
    fn success_bytes_are_the_envelope() {
        let v: Value = serde_json::from_slice(&ok_bytes(br#"{"a":1}"#)).unwrap();
        assert_eq!(
            v,
            json!({"apiVersion": "2.0", "ok": true, "value": {"a": 1}})
        );
    }
}
