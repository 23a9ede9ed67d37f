//! The project's own entity: id, name, settings and source folders; the journal is authoritative for them.

mod entity;
mod events;
mod name;

pub use entity::{ProjectCommand, ProjectEntity, ProjectReply, Source};
pub use events::ProjectEvent;
pub use name::validate_name;
