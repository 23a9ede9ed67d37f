//! Why bytes could not be described: the one error of the media parsers.

/// Why bytes could not be described.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MediaError {
    #[error("unsupported media format (PNG, JPEG, SVG and PDF are described)")]
    Unsupported,
    #[error("the bytes are not a readable {format}: {reason}")]
    Malformed {
        format: &'static str,
        reason: String,
    },
    #[error("the resource declares media format {declared:?} but its bytes are {found}")]
    Mismatch {
        declared: String,
        found: &'static str,
    },
}

impl MediaError {
    pub(crate) fn malformed(format: &'static str, reason: impl Into<String>) -> Self {
        MediaError::Malformed {
            format,
            reason: reason.into(),
        }
    }
}
