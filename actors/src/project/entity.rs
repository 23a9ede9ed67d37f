//! The project entity's state, fold and decisions.

use super::events::ProjectEvent;
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// Most settings a project keeps, and their sizes.
const MAX_SETTINGS: usize = 256;
const MAX_SETTING_KEY: usize = 128;
const MAX_SETTING_VALUE: usize = 16 * 1024;

/// A source folder of a named workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Source {
    pub root: String,
    pub label: String,
}

/// The project entity's state: a pure fold of its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectEntity {
    pub id: Uuid,
    pub name: String,
    pub created_ms: i64,
    pub created_by: String,
    /// Grows by one with every event of this entity.
    pub version: u64,
    pub settings: BTreeMap<String, String>,
    pub sources: BTreeMap<Uuid, Source>,
    identities: IdentityTable<ProjectReply>,
}

/// Commands to the project entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ProjectCommand {
    Create {
        id: Uuid,
        name: String,
    },
    Rename {
        name: String,
    },
    SetSetting {
        key: String,
        value: Option<String>,
    },
    /// Several settings in one atomic transaction: all are journaled in one batch or none.
    SetSettings {
        values: BTreeMap<String, Option<String>>,
    },
}

/// What a project command answers: the entity version it produced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectReply {
    pub version: u64,
}

impl ProjectEntity {
    /// Validates one setting change; `pending_new` counts new keys already in the same transaction.
    fn setting_event(
        &self,
        key: &str,
        value: &Option<String>,
        pending_new: usize,
    ) -> Result<ProjectEvent, ActorError> {
        if key.is_empty() || key.len() > MAX_SETTING_KEY {
            return Err(ActorError::invalid(
                "key",
                format!("a setting key has 1 to {MAX_SETTING_KEY} bytes"),
            ));
        }
        if value.as_ref().is_some_and(|v| v.len() > MAX_SETTING_VALUE) {
            return Err(ActorError::invalid(
                "value",
                format!("a setting value has at most {MAX_SETTING_VALUE} bytes"),
            ));
        }
        if value.is_some()
            && !self.settings.contains_key(key)
            && self.settings.len() + pending_new >= MAX_SETTINGS
        {
            return Err(ActorError::Limit {
                limit: "project.maxSettings".into(),
                value: MAX_SETTINGS as u64,
            });
        }
        Ok(ProjectEvent::SettingSet {
            key: key.to_string(),
            value: value.clone(),
        })
    }

    pub fn exists(&self) -> bool {
        self.version > 0
    }
}

impl Entity for ProjectEntity {
    const KIND: &'static str = "project";
    type Event = ProjectEvent;
    type Command = ProjectCommand;
    type Reply = ProjectReply;

    fn apply(&mut self, event: &ProjectEvent, meta: &EventMeta) {
        self.version += 1;
        match event {
            ProjectEvent::Created { id, name } => {
                self.id = *id;
                self.name = name.clone();
                self.created_ms = meta.time_ms;
                self.created_by = meta.principal.clone();
            }
            ProjectEvent::Renamed { name } => self.name = name.clone(),
            ProjectEvent::SettingSet { key, value } => match value {
                Some(v) => {
                    self.settings.insert(key.clone(), v.clone());
                }
                None => {
                    self.settings.remove(key);
                }
            },
            ProjectEvent::SourceAdded {
                source_id,
                root,
                label,
            } => {
                self.sources.insert(
                    *source_id,
                    Source {
                        root: root.clone(),
                        label: label.clone(),
                    },
                );
            }
        }
    }

    fn decide(
        &self,
        command: &ProjectCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<ProjectEvent, ProjectReply>, ActorError> {
        let next = ProjectReply {
            version: self.version + 1,
        };
        let event = match command {
            ProjectCommand::Create { id, name } => {
                if self.exists() {
                    return Err(ActorError::conflict(format!(
                        "project {} already exists",
                        self.id
                    )));
                }
                super::name::validate_name(name)?;
                ProjectEvent::Created {
                    id: *id,
                    name: name.clone(),
                }
            }
            _ if !self.exists() => {
                return Err(ActorError::NotFound {
                    what: "project".into(),
                })
            }
            ProjectCommand::Rename { name } => {
                super::name::validate_name(name)?;
                ProjectEvent::Renamed { name: name.clone() }
            }
            ProjectCommand::SetSetting { key, value } => self.setting_event(key, value, 0)?,
            ProjectCommand::SetSettings { values } => {
                if values.is_empty() {
                    return Err(ActorError::invalid(
                        "values",
                        "at least one setting is required",
                    ));
                }
                let mut added = 0;
                let mut events = Vec::with_capacity(values.len());
                for (key, value) in values {
                    events.push(self.setting_event(key, value, added)?);
                    added += usize::from(value.is_some() && !self.settings.contains_key(key));
                }
                return Ok(Decision {
                    events,
                    reply: ProjectReply {
                        version: self.version + values.len() as u64,
                    },
                });
            }
        };
        Ok(Decision {
            events: vec![event],
            reply: next,
        })
    }

    fn identities(&self) -> &IdentityTable<ProjectReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<ProjectReply> {
        &mut self.identities
    }
}
