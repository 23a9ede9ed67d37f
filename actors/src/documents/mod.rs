//! The documents owner: shared buffers as journaled child actors (one per file), with UTF-16 offsets, undo and checked saves.

pub mod changes;
pub mod contract;
pub mod entity;
pub mod entry;
pub mod events;
pub mod files;
pub mod history_contract;
pub mod index;
pub mod messages;
pub mod reconcile;
pub mod text;

pub use entity::{DocCommand, DocReply, DocumentEntity};
pub use events::DocumentEvent;
pub use index::DocIndex;
/// The messages' former path, kept for callers (`documents::handlers::OpenDocument`, ...).
pub use messages as handlers;
#[cfg(test)]
mod model_tests;
