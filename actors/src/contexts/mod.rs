//! Contexts: exact, frozen references a person or an Agent hands to each other (buffer ranges, entities).

pub mod contract;
pub mod entity;
pub mod handlers;

pub use entity::{ContextRecord, ContextsEntity, Frozen};
