//! The typed errors every owner returns; each maps to one stable wire code of CONVENTIONS.

use serde::Serialize;

/// A refusal or failure of a command or read, with the facts its wire `details` carry.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error, Serialize)]
pub enum ActorError {
    #[error("{reason}")]
    Invalid {
        field: Option<String>,
        index: Option<u64>,
        reason: String,
    },
    #[error("{what} not found")]
    NotFound { what: String },
    #[error("{reason}")]
    Conflict {
        reason: String,
        /// The id of the existing thing the request collided with, when there is one.
        existing_id: Option<String>,
    },
    /// A save found the file on disk other than the buffer's base (`conflict` on the wire):
    /// both digests are named so a client can show the choice and overwrite with `baseDigest`.
    #[error("{reason}")]
    DiskChanged {
        reason: String,
        /// The digest the buffer was opened or last saved at (`None`: the file did not exist).
        base_digest: Option<String>,
        /// The file's digest now (`None`: it was deleted).
        disk_digest: Option<String>,
    },
    #[error("version {current_version} is current")]
    Stale { current_version: u64 },
    #[error("limit {limit} ({value}) reached")]
    Limit { limit: String, value: u64 },
    #[error("unavailable: {reason}")]
    Unavailable {
        missing: Vec<String>,
        reason: String,
    },
    #[error("{reason}")]
    Expired { reason: String },
    #[error("internal error: {reason}")]
    Internal { reason: String },
}

impl ActorError {
    /// The stable wire code (CONVENTIONS, "The envelope and errors").
    pub fn code(&self) -> &'static str {
        match self {
            ActorError::Invalid { .. } => "invalid",
            ActorError::NotFound { .. } => "not_found",
            ActorError::Conflict { .. } | ActorError::DiskChanged { .. } => "conflict",
            ActorError::Stale { .. } => "stale",
            ActorError::Limit { .. } => "limit",
            ActorError::Unavailable { .. } => "unavailable",
            ActorError::Expired { .. } => "expired",
            ActorError::Internal { .. } => "internal",
        }
    }

    /// An `invalid` naming the field at fault.
    pub fn invalid(field: &str, reason: impl Into<String>) -> Self {
        ActorError::Invalid {
            field: Some(field.to_string()),
            index: None,
            reason: reason.into(),
        }
    }

    /// A `conflict` with nothing to name.
    pub fn conflict(reason: impl Into<String>) -> Self {
        ActorError::Conflict {
            reason: reason.into(),
            existing_id: None,
        }
    }

    /// An `unavailable` for a project or owner, with the reason a person can act on.
    pub fn unavailable(reason: impl Into<String>) -> Self {
        ActorError::Unavailable {
            missing: Vec::new(),
            reason: reason.into(),
        }
    }

    /// An `internal` fault; the reason is for the log, never for the wire.
    pub fn internal(reason: impl Into<String>) -> Self {
        ActorError::Internal {
            reason: reason.into(),
        }
    }
}

impl From<rho_journal::JournalError> for ActorError {
    fn from(e: rho_journal::JournalError) -> Self {
        use rho_journal::JournalError as J;
        match e {
            J::RecordTooLarge { max, .. } => ActorError::Limit {
                limit: "journal.maxRecordBytes".into(),
                value: u64::from(max),
            },
            other => {
                ActorError::unavailable(format!("the project journal refused the write: {other}"))
            }
        }
    }
}
