//! The requirements entity (one per project): explicit preparations, journaled before and after they install.
//!
//! A preparation is journaled as `requirements.prepare-started` before anything is installed and
//! `requirements.prepare-finished` afterwards; the fold records the `changeId` with its outcome,
//! so a retry returns the original result and a crash in between is settled as interrupted.

use super::model::{Probe, Requirement};
use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::{IdentityTable, InputDigest};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// How one preparation ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PrepareOutcome {
    pub change_id: String,
    /// Packages handed to `install.packages`.
    pub attempted: Vec<String>,
    /// The installer's exit code (`None`: not run, or ended by a signal/bound).
    pub exit_code: Option<i32>,
    /// `timeout` / `output-limit` when a bound stopped the installer.
    pub cut: Option<String>,
    /// The last bytes of the installer's output.
    pub log_tail: String,
    /// True when a crash interrupted the preparation (then `recheck` is absent).
    pub interrupted: bool,
    /// The probe after installing.
    pub recheck: Option<Probe>,
    pub time_ms: i64,
}

impl PrepareOutcome {
    /// The wire form.
    pub fn view(&self) -> super::contract::PrepareReply {
        let check = self.recheck.as_ref().map(Probe::view);
        super::contract::PrepareReply {
            attempted: self.attempted.clone(),
            change_id: self.change_id.clone(),
            satisfied: check.as_ref().is_some_and(|c| c.satisfied),
            check,
            exit_code: self.exit_code,
            interrupted: self.interrupted,
            log: self.log_tail.clone(),
            stopped_by: self.cut.clone(),
        }
    }
}

/// A preparation in flight.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Pending {
    pub digest: InputDigest,
    pub requirements: Vec<Requirement>,
    pub attempted: Vec<String>,
}

/// Events of the requirements entity. Variants are only ever appended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RequirementsEvent {
    PrepareStarted {
        change_id: String,
        digest: InputDigest,
        requirements: Vec<Requirement>,
        attempted: Vec<String>,
    },
    PrepareFinished {
        outcome: PrepareOutcome,
    },
}

impl EntityEvent for RequirementsEvent {
    fn kind(&self) -> &'static str {
        match self {
            RequirementsEvent::PrepareStarted { .. } => "requirements.prepare-started",
            RequirementsEvent::PrepareFinished { .. } => "requirements.prepare-finished",
        }
    }

    fn summary(&self) -> String {
        match self {
            RequirementsEvent::PrepareStarted {
                change_id,
                attempted,
                ..
            } => format!("prepare {change_id:?}: installing {}", attempted.join(", ")),
            RequirementsEvent::PrepareFinished { outcome } => format!(
                "prepare {:?} finished (exit {:?}{})",
                outcome.change_id,
                outcome.exit_code,
                if outcome.interrupted {
                    ", interrupted"
                } else {
                    ""
                }
            ),
        }
    }
}

/// Every preparation of one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RequirementsEntity {
    pub pending: BTreeMap<String, Pending>,
    identities: IdentityTable<PrepareOutcome>,
    /// Command stamps; stays empty (identities are recorded by the fold from `PrepareFinished`).
    stamps: IdentityTable<Option<PrepareOutcome>>,
}

/// Commands of the requirements entity.
#[derive(Debug, Clone)]
pub enum RequirementsCommand {
    Start {
        change_id: String,
        digest: InputDigest,
        requirements: Vec<Requirement>,
        attempted: Vec<String>,
    },
    Finish {
        outcome: PrepareOutcome,
    },
}

impl RequirementsEntity {
    /// The original outcome of a finished preparation under `change_id` (or `conflict`), or
    /// `conflict` when one with this id is still running.
    pub fn retry(
        &self,
        change_id: &str,
        digest: &InputDigest,
    ) -> Result<Option<PrepareOutcome>, ActorError> {
        if let Some(done) = self.identities.check(change_id, digest)? {
            return Ok(Some(done));
        }
        if self.pending.contains_key(change_id) {
            return Err(ActorError::conflict(format!(
                "the preparation {change_id:?} is still running; ask again when it has finished"
            )));
        }
        Ok(None)
    }
}

impl Entity for RequirementsEntity {
    const KIND: &'static str = "requirements";
    type Event = RequirementsEvent;
    type Command = RequirementsCommand;
    type Reply = Option<PrepareOutcome>;

    fn apply(&mut self, event: &RequirementsEvent, _meta: &EventMeta) {
        match event {
            RequirementsEvent::PrepareStarted {
                change_id,
                digest,
                requirements,
                attempted,
            } => {
                self.pending.insert(
                    change_id.clone(),
                    Pending {
                        digest: *digest,
                        requirements: requirements.clone(),
                        attempted: attempted.clone(),
                    },
                );
            }
            RequirementsEvent::PrepareFinished { outcome } => {
                if let Some(p) = self.pending.remove(&outcome.change_id) {
                    self.identities
                        .record(outcome.change_id.clone(), p.digest, outcome.clone());
                }
            }
        }
    }

    fn decide(
        &self,
        command: &RequirementsCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<RequirementsEvent, Option<PrepareOutcome>>, ActorError> {
        match command {
            RequirementsCommand::Start {
                change_id,
                digest,
                requirements,
                attempted,
            } => {
                if let Some(done) = self.retry(change_id, digest)? {
                    return Ok(Decision {
                        events: vec![],
                        reply: Some(done),
                    });
                }
                Ok(Decision {
                    events: vec![RequirementsEvent::PrepareStarted {
                        change_id: change_id.clone(),
                        digest: *digest,
                        requirements: requirements.clone(),
                        attempted: attempted.clone(),
                    }],
                    reply: None,
                })
            }
            RequirementsCommand::Finish { outcome } => {
                if !self.pending.contains_key(&outcome.change_id) {
                    return Err(ActorError::internal(format!(
                        "preparation {:?} is not running",
                        outcome.change_id
                    )));
                }
                Ok(Decision {
                    events: vec![RequirementsEvent::PrepareFinished {
                        outcome: outcome.clone(),
                    }],
                    reply: Some(outcome.clone()),
                })
            }
        }
    }

    fn identities(&self) -> &IdentityTable<Option<PrepareOutcome>> {
        &self.stamps
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<Option<PrepareOutcome>> {
        &mut self.stamps
    }

    fn reconcile(&self, now_ms: i64) -> Vec<RequirementsEvent> {
        self.pending
            .iter()
            .map(|(change_id, p)| RequirementsEvent::PrepareFinished {
                outcome: PrepareOutcome {
                    change_id: change_id.clone(),
                    attempted: p.attempted.clone(),
                    exit_code: None,
                    cut: None,
                    log_tail: String::new(),
                    interrupted: true,
                    recheck: None,
                    time_ms: now_ms,
                },
            })
            .collect()
    }
}
