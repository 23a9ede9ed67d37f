//! The resources entity (owner Files): every registered resource of a project, its versions and the captured store's inventory.
//!
//! One entity per project (its id is the project's id), so `changeId`s of resource writes are
//! project-wide and the resource count and captured-store bytes are checked in one decision.

use super::events::{ResourcesEvent, VersionFacts};
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// One version of a resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceVersion {
    pub version: u64,
    pub facts: VersionFacts,
    pub principal: String,
    pub time_ms: i64,
}

/// One resource: a project-relative path and its versions (oldest first, version = index + 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resource {
    pub id: Uuid,
    pub path: String,
    pub versions: Vec<ResourceVersion>,
}

impl Resource {
    pub fn latest(&self) -> Option<&ResourceVersion> {
        self.versions.last()
    }

    pub fn version(&self, v: u64) -> Option<&ResourceVersion> {
        self.versions.get(usize::try_from(v).ok()?.checked_sub(1)?)
    }
}

/// What a resource write answers: one version of one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourceRecord {
    pub id: Uuid,
    pub path: String,
    pub version: u64,
    pub facts: VersionFacts,
    pub principal: String,
    pub time_ms: i64,
}

impl ResourceRecord {
    pub fn of(r: &Resource, v: &ResourceVersion) -> Self {
        ResourceRecord {
            id: r.id,
            path: r.path.clone(),
            version: v.version,
            facts: v.facts.clone(),
            principal: v.principal.clone(),
            time_ms: v.time_ms,
        }
    }
}

/// The bounds a decision checks (`resources.maxResources`, `resources.maxArtifactBytes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PutBounds {
    pub max_resources: u64,
    pub max_artifact_bytes: u64,
}

/// Commands to the resources entity. The edge has already read (and for a capture, stored) the bytes.
#[derive(Debug, Clone)]
pub enum ResourcesCommand {
    /// Register `path` with these facts; `new_id` is used when the path is new.
    Put {
        new_id: Uuid,
        path: String,
        facts: VersionFacts,
        bounds: PutBounds,
    },
}

/// Every resource of one project, as folded from its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResourcesEntity {
    pub resources: BTreeMap<Uuid, Resource>,
    pub by_path: BTreeMap<String, Uuid>,
    /// Digests in the captured store and their sizes.
    pub stored: BTreeMap<String, u64>,
    pub stored_bytes: u64,
    identities: IdentityTable<ResourceRecord>,
}

impl ResourcesEntity {
    /// The record of `id` at `version`, or `not_found`.
    pub fn record(&self, id: Uuid, version: u64) -> Result<ResourceRecord, ActorError> {
        let r = self
            .resources
            .get(&id)
            .ok_or_else(|| ActorError::NotFound {
                what: "resource".into(),
            })?;
        let v = r.version(version).ok_or_else(|| ActorError::NotFound {
            what: format!("version {version} of resource {id}"),
        })?;
        Ok(ResourceRecord::of(r, v))
    }

    /// The identity's original reply, if this is a retry (or `conflict`).
    pub fn retry(
        &self,
        identity: &Option<(String, crate::identity::InputDigest)>,
    ) -> Result<Option<ResourceRecord>, ActorError> {
        match identity {
            Some((id, digest)) => self.identities.check(id, digest),
            None => Ok(None),
        }
    }

    /// The latest record of the resource at `path`, if registered.
    pub fn latest_at(&self, path: &str) -> Option<ResourceRecord> {
        let r = self.resources.get(self.by_path.get(path)?)?;
        r.latest().map(|v| ResourceRecord::of(r, v))
    }

    fn put(
        &self,
        new_id: Uuid,
        path: &str,
        facts: &VersionFacts,
        bounds: PutBounds,
        ctx: &CommandContext,
    ) -> Result<Decision<ResourcesEvent, ResourceRecord>, ActorError> {
        let principal = ctx.principal.to_string();
        let newly_stored = facts.captured && !self.stored.contains_key(&facts.sha256);
        if newly_stored && self.stored_bytes + facts.bytes > bounds.max_artifact_bytes {
            return Err(ActorError::Limit {
                limit: "resources.maxArtifactBytes".into(),
                value: bounds.max_artifact_bytes,
            });
        }
        let existing = self.by_path.get(path).and_then(|id| self.resources.get(id));
        let Some(r) = existing else {
            if self.resources.len() as u64 >= bounds.max_resources {
                return Err(ActorError::Limit {
                    limit: "resources.maxResources".into(),
                    value: bounds.max_resources,
                });
            }
            let reply = ResourceRecord {
                id: new_id,
                path: path.to_string(),
                version: 1,
                facts: facts.clone(),
                principal,
                time_ms: ctx.time_ms,
            };
            return Ok(Decision {
                events: vec![ResourcesEvent::VersionAdded {
                    id: new_id,
                    path: path.to_string(),
                    facts: facts.clone(),
                }],
                reply,
            });
        };
        if let Some(last) = r.latest() {
            let same = VersionFacts {
                captured: last.facts.captured,
                ..facts.clone()
            } == last.facts;
            if same {
                // Same bytes and declaration: the same version, captured now if asked.
                let mut reply = ResourceRecord::of(r, last);
                let events = if facts.captured && !last.facts.captured {
                    reply.facts.captured = true;
                    vec![ResourcesEvent::Captured {
                        id: r.id,
                        version: last.version,
                    }]
                } else {
                    Vec::new()
                };
                return Ok(Decision { events, reply });
            }
        }
        let reply = ResourceRecord {
            id: r.id,
            path: path.to_string(),
            version: r.versions.len() as u64 + 1,
            facts: facts.clone(),
            principal,
            time_ms: ctx.time_ms,
        };
        Ok(Decision {
            events: vec![ResourcesEvent::VersionAdded {
                id: r.id,
                path: path.to_string(),
                facts: facts.clone(),
            }],
            reply,
        })
    }

    fn store(&mut self, sha256: &str, bytes: u64) {
        if self.stored.insert(sha256.to_string(), bytes).is_none() {
            self.stored_bytes += bytes;
        }
    }
}

impl Entity for ResourcesEntity {
    const KIND: &'static str = "resources";
    type Event = ResourcesEvent;
    type Command = ResourcesCommand;
    type Reply = ResourceRecord;

    fn apply(&mut self, event: &ResourcesEvent, meta: &EventMeta) {
        match event {
            ResourcesEvent::VersionAdded { id, path, facts } => {
                if facts.captured {
                    self.store(&facts.sha256, facts.bytes);
                }
                self.by_path.insert(path.clone(), *id);
                let r = self.resources.entry(*id).or_insert_with(|| Resource {
                    id: *id,
                    path: path.clone(),
                    versions: Vec::new(),
                });
                r.versions.push(ResourceVersion {
                    version: r.versions.len() as u64 + 1,
                    facts: facts.clone(),
                    principal: meta.principal.clone(),
                    time_ms: meta.time_ms,
                });
            }
            ResourcesEvent::Captured { id, version } => {
                let mut stored = None;
                if let Some(v) = self
                    .resources
                    .get_mut(id)
                    .and_then(|r| r.versions.get_mut((*version as usize).wrapping_sub(1)))
                {
                    v.facts.captured = true;
                    stored = Some((v.facts.sha256.clone(), v.facts.bytes));
                }
                if let Some((sha, bytes)) = stored {
                    self.store(&sha, bytes);
                }
            }
        }
    }

    fn decide(
        &self,
        command: &ResourcesCommand,
        ctx: &CommandContext,
    ) -> Result<Decision<ResourcesEvent, ResourceRecord>, ActorError> {
        match command {
            ResourcesCommand::Put {
                new_id,
                path,
                facts,
                bounds,
            } => self.put(*new_id, path, facts, *bounds, ctx),
        }
    }

    fn identities(&self) -> &IdentityTable<ResourceRecord> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<ResourceRecord> {
        &mut self.identities
    }
}
