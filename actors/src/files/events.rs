//! Events of the resources entity (owner Files), as journaled.

use super::decl::{MediaDecl, TableDecl};
use crate::entity::EntityEvent;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A change to the project's resources. Variants are only ever appended (their index is the wire tag).
// Events are built one at a time and journaled at once; boxing buys nothing here.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ResourcesEvent {
    /// A new version of a resource (a new resource when `id` is new).
    VersionAdded {
        id: Uuid,
        path: String,
        facts: VersionFacts,
    },
    /// An existing version's bytes were copied into the captured store.
    Captured { id: Uuid, version: u64 },
}

/// What one version of a resource declares and what its bytes were when registered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VersionFacts {
    pub kind: String,
    pub format: String,
    pub bytes: u64,
    /// Lowercase hex SHA-256 of the bytes.
    pub sha256: String,
    pub captured: bool,
    pub partial: bool,
    pub operation_id: Option<String>,
    pub table: Option<TableDecl>,
    pub media: Option<MediaDecl>,
}

impl EntityEvent for ResourcesEvent {
    fn kind(&self) -> &'static str {
        match self {
            ResourcesEvent::VersionAdded { .. } => "resource.version-added",
            ResourcesEvent::Captured { .. } => "resource.captured",
        }
    }

    fn summary(&self) -> String {
        match self {
            ResourcesEvent::VersionAdded { id, path, facts } => format!(
                "{path:?} ({id}): {} bytes sha256 {}{}",
                facts.bytes,
                &facts.sha256[..facts.sha256.len().min(12)],
                if facts.captured { " captured" } else { "" }
            ),
            ResourcesEvent::Captured { id, version } => format!("captured {id} v{version}"),
        }
    }
}
