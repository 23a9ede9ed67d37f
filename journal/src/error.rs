//! Typed errors of the journal (`JournalError`), cloneable so one failure can complete many waiters.

use std::io;
use std::path::PathBuf;

/// An I/O error reduced to its kind and message so that it can be cloned.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message} ({kind:?})")]
pub struct IoFailure {
    /// The `std::io::ErrorKind` of the original error.
    pub kind: io::ErrorKind,
    /// The original error's message (including the OS error code when there was one).
    pub message: String,
}

impl From<&io::Error> for IoFailure {
    fn from(e: &io::Error) -> Self {
        IoFailure {
            kind: e.kind(),
            message: e.to_string(),
        }
    }
}

impl From<io::Error> for IoFailure {
    fn from(e: io::Error) -> Self {
        IoFailure::from(&e)
    }
}

/// Everything that can go wrong with a journal.
#[derive(Clone, Debug, thiserror::Error)]
pub enum JournalError {
    /// The journal directory (or a file it must contain) does not exist. Nothing was created.
    #[error("no journal at {path}")]
    NotFound {
        /// The missing path.
        path: PathBuf,
    },
    /// The journal is damaged in a way that is not a torn tail; it is refused.
    #[error(
        "journal is corrupt in segment {segment} at offset {offset} (seq {seq}): {reason}; \
         run `rho journal inspect --verify` on the project"
    )]
    Corrupt {
        /// Segment number where the problem was found.
        segment: u64,
        /// Byte offset inside that segment file.
        offset: u64,
        /// The seq expected at that point.
        seq: u64,
        /// What is wrong.
        reason: String,
    },
    /// A sync failed; the journal accepts and acknowledges nothing more. Reopen from disk.
    #[error("journal is poisoned: {reason}")]
    Poisoned {
        /// Why it was poisoned.
        reason: String,
    },
    /// A write failed (e.g. ENOSPC); the file was truncated back to the last durable offset and
    /// the batch (and every batch queued behind it) was not written.
    #[error("journal write failed: {source}")]
    WriteFailed {
        /// The I/O error of the write.
        source: IoFailure,
    },
    /// A previous write failed; the owner must rebuild its state from disk and call `resume`.
    #[error("journal needs a rebuild after a failed write; call resume() once state is rebuilt")]
    NeedsRebuild,
    /// A record's frame is larger than `max_record_bytes`.
    #[error("record of {bytes} bytes exceeds the maximum of {max} bytes")]
    RecordTooLarge {
        /// Frame size of the record.
        bytes: u64,
        /// The configured maximum.
        max: u32,
    },
    /// The journal is closed (or closing) and accepts nothing.
    #[error("journal is closed")]
    Closed,
    /// `create` found an existing journal (a segment or watermark file) in the directory.
    #[error("a journal already exists in that directory")]
    AlreadyExists,
    /// An I/O error outside the append path (open, read, snapshot, watermark).
    #[error("{context}: {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The I/O error.
        source: IoFailure,
    },
    /// The caller passed something invalid (bad entity kind, seq not durable, ...).
    #[error("invalid request: {reason}")]
    Invalid {
        /// What is invalid.
        reason: String,
    },
}

impl JournalError {
    /// Wraps an I/O error with a context naming the operation and path.
    pub(crate) fn io(context: impl Into<String>, e: io::Error) -> Self {
        JournalError::Io {
            context: context.into(),
            source: IoFailure::from(&e),
        }
    }

    /// Shorthand for `Invalid`.
    pub(crate) fn invalid(reason: impl Into<String>) -> Self {
        JournalError::Invalid {
            reason: reason.into(),
        }
    }
}
