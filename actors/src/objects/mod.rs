//! Owner R's reading side: `object.read` of an exported object snapshot, validated and selected by JSON pointer; never starts R.

pub mod contract;
pub mod entry;
pub mod handlers;
pub mod snapshot;

/// Why a snapshot selection was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectError {
    /// The bytes are not an object snapshot of schema version 1.
    #[error("not an object snapshot: {0}")]
    Shape(String),
    /// The pointer is not RFC 6901 syntax.
    #[error("not a JSON pointer: {0}")]
    Pointer(String),
    /// The pointer selects nothing.
    #[error("the pointer selects nothing")]
    NothingSelected,
    /// The selection's JSON is larger than `resources.maxReadBytes`.
    #[error("the selection has {bytes} bytes, more than {max}")]
    TooLarge { bytes: u64, max: u64 },
}
