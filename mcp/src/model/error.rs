//! What can go wrong talking to a model provider (never carrying the key).

/// A failed model request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ModelError {
    /// The provider answered with an error status.
    #[error("the model provider answered HTTP {status}: {message}")]
    Http {
        /// The status.
        status: u16,
        /// The provider's own message (or the body's start).
        message: String,
    },
    /// The request never got an answer (connection refused, DNS, TLS, timeout).
    #[error("cannot reach the model provider at {url}: {reason}")]
    Connect {
        /// The endpoint (no credentials in it).
        url: String,
        /// Why.
        reason: String,
    },
    /// The answer broke off or reported an error mid-stream.
    #[error("the model's answer broke off: {0}")]
    Stream(String),
    /// The answer could not be read.
    #[error("the model provider sent an answer Rho cannot read: {0}")]
    Decode(String),
}

impl ModelError {
    /// Whether sending the same request again may succeed (overload, rate limit, a 5xx, no
    /// connection). Never true once an answer has started.
    pub fn retryable(&self) -> bool {
        match self {
            ModelError::Http { status, .. } => {
                matches!(status, 408 | 409 | 429 | 500 | 502 | 503 | 504 | 529)
            }
            ModelError::Connect { .. } => true,
            ModelError::Stream(_) | ModelError::Decode(_) => false,
        }
    }
}

/// The provider's message in an error body (`{"error": {"message"}}` in both APIs), else the
/// body's first 500 characters.
pub fn message_of(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    if let Ok(v) = serde_json::from_slice::<serde_json::Value>(body) {
        let m = v["error"]["message"]
            .as_str()
            .or_else(|| v["message"].as_str())
            .or_else(|| v["error"].as_str());
        if let Some(m) = m {
            return m.to_owned();
        }
    }
    let t = text.trim();
    if t.is_empty() {
        return "no details".to_owned();
    }
    t.chars().take(500).collect()
}

/// A reqwest error's chain, short (reqwest's own text names the URL, never a header).
pub fn describe(e: &reqwest::Error) -> String {
    let mut s = e.to_string();
    let mut src = std::error::Error::source(e);
    while let Some(inner) = src {
        s.push_str(": ");
        s.push_str(&inner.to_string());
        src = inner.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_from_either_api_shape() {
        assert_eq!(
            message_of(br#"{"type":"error","error":{"type":"api_error","message":"boom"}}"#),
            "boom"
        );
        assert_eq!(message_of(b"plain failure"), "plain failure");
        assert!(ModelError::Http {
            status: 529,
            message: String::new()
        }
        .retryable());
        assert!(!ModelError::Http {
            status: 400,
            message: String::new()
        }
        .retryable());
    }
}
