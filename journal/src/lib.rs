//! rho-journal: the framed, append-only, group-committed journal that is the only source of truth for a project.
//!
//! The crate knows nothing of actix, HTTP or MCP. See `FORMAT.md` for the on-disk format.

mod commit;
mod config;
mod error;
mod failpoint;
mod frame;
mod fsutil;
mod header;
pub mod inspect;
mod journal;
mod leader;
pub mod lease;
#[cfg(test)]
mod prealloc_tests;
mod reader;
mod scan;
#[cfg(test)]
mod scan_tests;
mod slot;
mod snapshot;
mod state;
mod sync;
mod types;
mod watermark;
mod writer;

pub use config::JournalConfig;
pub use error::{IoFailure, JournalError};
pub use journal::Journal;
pub use lease::{LeaseError, WriterLease};
pub use reader::RecordIter;
pub use types::{
    Assigned, DoneFn, EntityRef, NewRecord, OpenReport, Record, TornTail, WaitFn,
    INTERNAL_ENTITY_KIND, KIND_CHECKPOINT, KIND_CLEAN_SHUTDOWN, KIND_OPENED,
};
pub use watermark::Watermark;
