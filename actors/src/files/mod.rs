//! Owner Files: resources (declared bytes with versions, digests and provenance), their exact bytes, and capture.

pub mod contract;
pub mod decl;
mod entity;
mod events;
pub mod handlers;
pub mod store;
pub mod stream;
pub mod verified;

pub use entity::{
    PutBounds, Resource, ResourceRecord, ResourceVersion, ResourcesCommand, ResourcesEntity,
};
pub use events::{ResourcesEvent, VersionFacts};

use crate::error::ActorError;

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner Files in the owner table: one resources entity per project.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Files,
    requires: &[],
    operations: &[contract::OPERATIONS],
    entries: &[],
    actions: &[],
    kinds: &[per_project!(ResourcesEntity, resources)],
    recover: None,
};

/// A refusal of an owner that reads resource bytes: an ordinary refusal, or the bytes of an
/// uncaptured version changed (or vanished) since it was registered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FilesError {
    #[error(transparent)]
    Actor(#[from] ActorError),
    #[error("the file changed since this version was registered and the version was not captured")]
    Stale {
        recorded: String,
        /// `None` when the file is gone.
        current: Option<String>,
    },
}
