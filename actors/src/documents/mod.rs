//! The documents owner: shared buffers as journaled child actors (one per file), with UTF-16 offsets, undo and checked saves.

pub mod contract;
pub mod entity;
pub mod events;
pub mod files;
pub mod handlers;
pub mod index;
pub mod reconcile;
pub mod text;

pub use entity::{DocCommand, DocReply, DocumentEntity};
pub use events::DocumentEvent;
pub use index::DocIndex;
#[cfg(test)]
mod model_tests;
