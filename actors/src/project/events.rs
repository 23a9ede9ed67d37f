//! Events of the project entity, as journaled.

use crate::entity::EntityEvent;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// A change to the project entity. Variants are only ever appended (their index is the wire tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProjectEvent {
    Created {
        id: Uuid,
        name: String,
    },
    Renamed {
        name: String,
    },
    SettingSet {
        key: String,
        value: Option<String>,
    },
    SourceAdded {
        source_id: Uuid,
        root: String,
        label: String,
    },
}

impl EntityEvent for ProjectEvent {
    fn kind(&self) -> &'static str {
        match self {
            ProjectEvent::Created { .. } => "project.created",
            ProjectEvent::Renamed { .. } => "project.renamed",
            ProjectEvent::SettingSet { .. } => "project.setting-set",
            ProjectEvent::SourceAdded { .. } => "project.source-added",
        }
    }

    fn summary(&self) -> String {
        match self {
            ProjectEvent::Created { id, name } => format!("created {name:?} ({id})"),
            ProjectEvent::Renamed { name } => format!("renamed to {name:?}"),
            ProjectEvent::SettingSet {
                key,
                value: Some(v),
            } => {
                format!("set {key} ({} bytes)", v.len())
            }
            ProjectEvent::SettingSet { key, value: None } => format!("removed {key}"),
            ProjectEvent::SourceAdded {
                source_id, label, ..
            } => format!("added source @{source_id} {label:?}"),
        }
    }
}
