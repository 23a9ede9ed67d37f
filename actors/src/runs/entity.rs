//! The runs entity (one per project, owner r): accepted runs and every fact learned about them, journaled.
//!
//! `operationId` is project-wide: the identity table lives here. Acceptance journals the frozen
//! plan and `sending` in one batch before anything is delivered; delivery and Host observations
//! are later events. Nothing here spawns or talks to a process.

use super::model::*;
use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What the Host said about a run (already mapped to the service's terms).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub execution: Execution,
    pub exit: Option<ExitFacts>,
    pub stop: Option<StopFacts>,
    pub stdout: LogFacts,
    pub stderr: LogFacts,
    pub inventory: Option<Vec<InventoryEntry>>,
}

/// Events of the runs entity. Variants are only ever appended.
// The accepted record is journaled once; boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RunEvent {
    Accepted {
        record: RunRecord,
    },
    Sending {
        operation_id: String,
    },
    Sent {
        operation_id: String,
    },
    /// The Host certainly does not have it (refused, or answered "not found" on recovery).
    NotSent {
        operation_id: String,
        reason: String,
    },
    /// Delivery may or may not have happened and no Host answers.
    Uncertain {
        operation_id: String,
    },
    Observed {
        operation_id: String,
        observation: Observation,
    },
    /// No Host answers for a delivered run.
    ExecutionUnknown {
        operation_id: String,
    },
    StopRequested {
        operation_id: String,
        requested_by: String,
    },
    /// An export was built (its `exportId`, input digest and reply as JSON text).
    Exported {
        operation_id: String,
        export_id: String,
        digest: crate::identity::InputDigest,
        reply: String,
    },
    /// The run goes to a Slurm cluster (journaled before anything is submitted).
    SlurmPlaced {
        operation_id: String,
        target: super::slurm::SlurmTarget,
    },
    /// sbatch answered this job id (journaled before the id is trusted).
    SlurmJob {
        operation_id: String,
        job_id: String,
    },
    /// The run goes to a Slurm cluster behind an ssh login node, its inputs into `login.folder`
    /// there (journaled before anything is copied or submitted; appended last, so every older
    /// encoding keeps its meaning).
    SlurmPlacedVia {
        operation_id: String,
        target: super::slurm::SlurmTarget,
        login: super::slurm::SlurmLogin,
    },
}

impl RunEvent {
    pub fn operation_id(&self) -> &str {
        match self {
            RunEvent::Accepted { record } => &record.operation_id,
            RunEvent::Sending { operation_id }
            | RunEvent::Sent { operation_id }
            | RunEvent::NotSent { operation_id, .. }
            | RunEvent::Uncertain { operation_id }
            | RunEvent::Observed { operation_id, .. }
            | RunEvent::ExecutionUnknown { operation_id }
            | RunEvent::StopRequested { operation_id, .. }
            | RunEvent::Exported { operation_id, .. }
            | RunEvent::SlurmPlaced { operation_id, .. }
            | RunEvent::SlurmJob { operation_id, .. }
            | RunEvent::SlurmPlacedVia { operation_id, .. } => operation_id,
        }
    }
}

impl EntityEvent for RunEvent {
    fn kind(&self) -> &'static str {
        match self {
            RunEvent::Accepted { .. } => "run.accepted",
            RunEvent::Sending { .. } => "run.sending",
            RunEvent::Sent { .. } => "run.sent",
            RunEvent::NotSent { .. } => "run.not-sent",
            RunEvent::Uncertain { .. } => "run.uncertain",
            RunEvent::Observed { .. } => "run.observed",
            RunEvent::ExecutionUnknown { .. } => "run.execution-unknown",
            RunEvent::StopRequested { .. } => "run.stop-requested",
            RunEvent::Exported { .. } => "run.exported",
            RunEvent::SlurmPlaced { .. } => "run.slurm-placed",
            RunEvent::SlurmJob { .. } => "run.slurm-job",
            RunEvent::SlurmPlacedVia { .. } => "run.slurm-placed-via",
        }
    }

    fn summary(&self) -> String {
        let op = self.operation_id();
        match self {
            RunEvent::Accepted { record } => format!(
                "run {op:?} accepted: script sha256 {} by {}",
                &record.plan.script_digest[..record.plan.script_digest.len().min(12)],
                record.submitter
            ),
            RunEvent::NotSent { reason, .. } => format!("run {op:?} not sent: {reason}"),
            RunEvent::Observed { observation, .. } => {
                format!("run {op:?} observed {:?}", observation.execution)
            }
            RunEvent::StopRequested { requested_by, .. } => {
                format!("run {op:?} stop requested by {requested_by}")
            }
            RunEvent::SlurmPlaced { target, .. } => {
                format!("run {op:?} goes to the Slurm place {}", target.place)
            }
            RunEvent::SlurmJob { job_id, .. } => format!("run {op:?} is Slurm job {job_id}"),
            RunEvent::SlurmPlacedVia { target, login, .. } => format!(
                "run {op:?} goes to the Slurm place {} through {}, in {}",
                target.place, login.via, login.folder
            ),
            other => format!("{} {op:?}", other.kind()),
        }
    }
}

/// Every run of one project.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunsEntity {
    pub runs: BTreeMap<String, RunRecord>,
    identities: IdentityTable<RunRecord>,
    /// Exports by `exportId`: the input digest and the reply (JSON text).
    pub exports: BTreeMap<String, (crate::identity::InputDigest, String)>,
    /// Runs sent to a Slurm cluster: where, and the job id once sbatch answered.
    pub slurm: BTreeMap<String, super::slurm::SlurmRun>,
}

/// Commands of the runs entity.
#[derive(Debug, Clone)]
pub enum RunCommand {
    /// Accept a frozen run and mark it `sending` (limits checked here).
    Accept {
        record: Box<RunRecord>,
        max_concurrent: u64,
        max_operations: u64,
    },
    /// Mark a retained `not-sent` run `sending` again (explicit retry).
    Resend {
        operation_id: String,
        max_concurrent: u64,
    },
    /// Record a fact learned from the Host (or from its absence).
    Learn { event: RunEvent },
    /// Record a built export under its `exportId`.
    Export { event: RunEvent },
}

impl RunsEntity {
    /// A retained run, or `not_found`.
    pub fn get(&self, operation_id: &str) -> Result<&RunRecord, ActorError> {
        self.runs
            .get(operation_id)
            .ok_or_else(|| ActorError::NotFound { what: "run".into() })
    }

    fn slots_in_use(&self) -> u64 {
        self.runs.values().filter(|r| r.occupies_slot()).count() as u64
    }
}

fn limit(key: &str, value: u64) -> ActorError {
    ActorError::Limit {
        limit: key.into(),
        value,
    }
}

impl Entity for RunsEntity {
    const KIND: &'static str = "runs";
    type Event = RunEvent;
    type Command = RunCommand;
    type Reply = RunRecord;

    fn apply(&mut self, event: &RunEvent, meta: &EventMeta) {
        if let RunEvent::Accepted { record } = event {
            self.runs
                .insert(record.operation_id.clone(), record.clone());
            return;
        }
        if let RunEvent::Exported {
            export_id,
            digest,
            reply,
            ..
        } = event
        {
            self.exports
                .insert(export_id.clone(), (*digest, reply.clone()));
            return;
        }
        match event {
            RunEvent::SlurmPlaced {
                operation_id,
                target,
            } => {
                self.slurm.insert(
                    operation_id.clone(),
                    super::slurm::SlurmRun {
                        target: target.clone(),
                        job_id: None,
                        login: None,
                    },
                );
                return;
            }
            RunEvent::SlurmPlacedVia {
                operation_id,
                target,
                login,
            } => {
                self.slurm.insert(
                    operation_id.clone(),
                    super::slurm::SlurmRun {
                        target: target.clone(),
                        job_id: None,
                        login: Some(login.clone()),
                    },
                );
                return;
            }
            RunEvent::SlurmJob {
                operation_id,
                job_id,
            } => {
                if let Some(s) = self.slurm.get_mut(operation_id) {
                    s.job_id = Some(job_id.clone());
                }
                return;
            }
            _ => {}
        }
        let Some(r) = self.runs.get_mut(event.operation_id()) else {
            return;
        };
        r.updated_at_ms = meta.time_ms;
        match event {
            RunEvent::Accepted { .. }
            | RunEvent::Exported { .. }
            | RunEvent::SlurmPlaced { .. }
            | RunEvent::SlurmJob { .. }
            | RunEvent::SlurmPlacedVia { .. } => {}
            RunEvent::Sending { .. } => r.delivery = Delivery::Sending,
            RunEvent::Sent { .. } => {
                r.delivery = Delivery::Sent;
                r.sent_at_ms = Some(meta.time_ms);
                if r.execution == Execution::Pending {
                    r.execution = Execution::Running;
                }
            }
            RunEvent::NotSent { reason, .. } => {
                r.delivery_note = Some(reason.clone());
                r.delivery = Delivery::NotSent;
                r.execution = Execution::Pending;
            }
            RunEvent::Uncertain { .. } => {
                r.delivery = Delivery::Uncertain;
                r.execution = Execution::Unknown;
            }
            RunEvent::Observed { observation, .. } => {
                if r.delivery != Delivery::Sent {
                    r.delivery = Delivery::Sent;
                    r.sent_at_ms.get_or_insert(meta.time_ms);
                }
                r.execution = observation.execution;
                r.exit = observation.exit.clone();
                if observation.stop.is_some() {
                    r.stop = observation.stop.clone();
                }
                r.stdout = observation.stdout;
                r.stderr = observation.stderr;
                if observation.inventory.is_some() {
                    r.inventory = observation.inventory.clone();
                }
            }
            RunEvent::ExecutionUnknown { .. } => r.execution = Execution::Unknown,
            RunEvent::StopRequested { requested_by, .. } => {
                if r.stop.is_none() {
                    r.stop = Some(StopFacts {
                        state: StopState::Requested,
                        requested_by: requested_by.clone(),
                        at_ms: meta.time_ms,
                        core_exit: None,
                    });
                }
            }
        }
    }

    fn decide(
        &self,
        command: &RunCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<RunEvent, RunRecord>, ActorError> {
        match command {
            RunCommand::Accept {
                record,
                max_concurrent,
                max_operations,
            } => {
                let op = &record.operation_id;
                if self.runs.contains_key(op) {
                    return Err(ActorError::conflict(format!(
                        "operationId {op:?} names another run"
                    )));
                }
                if self.runs.len() as u64 >= *max_operations {
                    return Err(limit("maxOperations", *max_operations));
                }
                if self.slots_in_use() >= *max_concurrent {
                    return Err(limit("maxConcurrentActions", *max_concurrent));
                }
                if let Some(target) = &record.repair_of {
                    let t = self.get(target)?;
                    if !t.repairable() {
                        return Err(ActorError::invalid(
                            "repairOf",
                            format!("run {target:?} neither failed nor is unknown"),
                        ));
                    }
                }
                let mut reply = (**record).clone();
                reply.delivery = Delivery::Sending;
                Ok(Decision {
                    events: vec![
                        RunEvent::Accepted {
                            record: record.clone().as_ref().clone(),
                        },
                        RunEvent::Sending {
                            operation_id: op.clone(),
                        },
                    ],
                    reply,
                })
            }
            RunCommand::Resend {
                operation_id,
                max_concurrent,
            } => {
                let r = self.get(operation_id)?;
                if r.delivery != Delivery::NotSent {
                    return Ok(Decision {
                        events: vec![],
                        reply: r.clone(),
                    });
                }
                if self.slots_in_use() >= *max_concurrent {
                    return Err(limit("maxConcurrentActions", *max_concurrent));
                }
                let mut reply = r.clone();
                reply.delivery = Delivery::Sending;
                Ok(Decision {
                    events: vec![RunEvent::Sending {
                        operation_id: operation_id.clone(),
                    }],
                    reply,
                })
            }
            RunCommand::Export { event } => {
                let r = self.get(event.operation_id())?.clone();
                if let RunEvent::Exported {
                    export_id, digest, ..
                } = event
                {
                    if let Some((d, _)) = self.exports.get(export_id) {
                        if d != digest {
                            return Err(ActorError::conflict(format!(
                                "exportId {export_id:?} was already used with a different input"
                            )));
                        }
                        return Ok(Decision {
                            events: vec![],
                            reply: r,
                        });
                    }
                }
                Ok(Decision {
                    events: vec![event.clone()],
                    reply: r,
                })
            }
            RunCommand::Learn { event }
                if matches!(
                    event,
                    RunEvent::SlurmPlaced { .. }
                        | RunEvent::SlurmJob { .. }
                        | RunEvent::SlurmPlacedVia { .. }
                ) =>
            {
                // Facts of the Slurm side, kept beside the record: always journaled.
                Ok(Decision {
                    events: vec![event.clone()],
                    reply: self.get(event.operation_id())?.clone(),
                })
            }
            RunCommand::Learn { event } => {
                let mut after = self.get(event.operation_id())?.clone();
                let mut probe = RunsEntity::default();
                probe.runs.insert(after.operation_id.clone(), after.clone());
                probe.apply(
                    event,
                    &EventMeta {
                        seq: 0,
                        entity_seq: 0,
                        time_ms: rho_plumbing::time::now_ms(),
                        principal: String::new(),
                    },
                );
                let changed = probe
                    .runs
                    .get(event.operation_id())
                    .cloned()
                    .unwrap_or(after.clone());
                let differs = RunRecord {
                    updated_at_ms: 0,
                    sent_at_ms: None,
                    ..changed.clone()
                } != RunRecord {
                    updated_at_ms: 0,
                    sent_at_ms: None,
                    ..after.clone()
                };
                if differs {
                    after = changed;
                }
                Ok(Decision {
                    events: if differs { vec![event.clone()] } else { vec![] },
                    reply: after,
                })
            }
        }
    }

    fn identities(&self) -> &IdentityTable<RunRecord> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<RunRecord> {
        &mut self.identities
    }
}
