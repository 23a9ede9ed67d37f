//! `action.submit` of `r.execute` 0.2.0: identity first, then freeze, check, journal (`sending`),
//! deliver to the project's Core Host, journal `sent`, and supervise until the run ends.

use super::state::{AcceptRun, CheckRunIdentity, LearnRun};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::files::handlers::LoadResource;
use crate::files::FilesError;
use crate::project_actor::ProjectActor;
use crate::requirements::Requirement;
use crate::runs::entity::RunEvent;
use crate::runs::freeze::{self, FreezeLimits};
use crate::runs::host::{self, HostAnswer};
use crate::runs::model::*;
use crate::service_state::ServiceState;
use actix::prelude::*;
use std::path::PathBuf;
use uuid::Uuid;

/// Where the code comes from, as the edge parsed it.
#[derive(Debug, Clone)]
pub enum ScriptSource {
    Disk { path: String, digest: String },
    Buffer { document_id: Uuid, version: u64 },
}

/// One argument, as the edge parsed it.
#[derive(Debug, Clone)]
pub enum ArgSource {
    Literal(String),
    Resource { id: Uuid, version: u64 },
}

/// A validated submission (shape, declarations and names already checked by the edge).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Submitted, ActorError>")]
pub struct SubmitRun {
    pub operation_id: String,
    pub script: ScriptSource,
    pub args: Vec<ArgSource>,
    pub requirements: Vec<Requirement>,
    pub artifacts: Vec<ArtifactDecl>,
    pub completion: Option<String>,
    pub repair_of: Option<String>,
    /// A Slurm place the run goes to (none: the project's Core Host).
    pub place: Option<String>,
    /// The identity `(operationId, digest of the canonical request)` and the submitter.
    /// Its `needs` (r, requirements, documents for a buffer) are checked after the identity: a
    /// new identity with one unselected is `unavailable` and nothing is done; an accepted
    /// identity still answers its original run.
    pub ctx: CommandContext,
}

/// What a submission answers.
#[derive(Debug, Clone, PartialEq)]
pub enum Submitted {
    /// The identity was accepted before (same input): its run as it stands now.
    Original(RunRecord),
    /// Accepted now: delivered, or retained as not-sent.
    New(RunRecord),
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ActorError> + Send + 'static,
) -> Result<T, ActorError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(format!("project mailbox: {e}"))
}

/// The latest version of a resource, for the freshness check of a resource argument.
#[derive(Message)]
#[rtype(result = "Result<u64, ActorError>")]
pub(crate) struct LatestVersion(pub Uuid);

impl Handler<LatestVersion> for ProjectActor {
    type Result = ResponseFuture<Result<u64, ActorError>>;

    fn handle(&mut self, msg: LatestVersion, _: &mut Context<Self>) -> Self::Result {
        let read = crate::files::handlers::read_resources(self, move |r| {
            r.resources
                .get(&msg.0)
                .map(|res| res.versions.len() as u64)
                .ok_or_else(|| ActorError::NotFound {
                    what: "resource".into(),
                })
        });
        Box::pin(async move { read.await? })
    }
}

impl Handler<SubmitRun> for ProjectActor {
    type Result = ResponseFuture<Result<Submitted, ActorError>>;

    fn handle(&mut self, msg: SubmitRun, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let cx = crate::runs::slurm::SlurmCtx::of(self);
        let l = self.config_limits().clone();
        let limits = FreezeLimits {
            max_code_bytes: l.max_code_bytes,
            max_script_bytes: l.r.max_script_bytes,
            max_artifact_files: l.resources.max_artifact_files,
            max_file_bytes: l.resources.max_file_bytes,
        };
        let r_limits = l.r.clone();
        let config = self.r_config().clone();
        let state = self.service_state().clone();
        let gate = self.gate(&msg.ctx);
        Box::pin(async move {
            let (op, digest) = msg
                .ctx
                .identity
                .clone()
                .ok_or_else(|| ActorError::internal("a submission carries its identity"))?;
            // 1. Identity first: the original record, or conflict.
            if let Some(original) = me
                .send(CheckRunIdentity {
                    operation_id: op.clone(),
                    digest,
                })
                .await
                .map_err(mailbox)??
            {
                return Ok(Submitted::Original(original));
            }
            gate?;
            let core = config.core.clone().ok_or_else(|| {
                ActorError::unavailable("no Core is selected for managed execution")
            })?;
            // A run on a Slurm place: resolved now and journaled with the run.
            let slurm = match &msg.place {
                Some(place) => Some(crate::runs::slurm_place::target(&me, place, &op).await?),
                None => None,
            };
            let rscript = match &slurm {
                Some(s) => PathBuf::from(&s.target.rscript),
                None => config.rscript.clone().ok_or_else(|| ActorError::Unavailable {
                    missing: vec![],
                    reason: "managed execution needs R: no Rscript was found (install R, or select one with --rscript / RHO_RSCRIPT)".into(),
                })?,
            };
            // 2. Freeze the code.
            let (script, code) = match &msg.script {
                ScriptSource::Disk { path, digest } => {
                    let (d, p, dg) = (dir.clone(), path.clone(), digest.clone());
                    let (path, code) =
                        blocking(move || freeze::disk_code(&d, &p, &dg, &limits)).await?;
                    (ScriptRef::Disk { path }, code)
                }
                ScriptSource::Buffer {
                    document_id,
                    version,
                } => {
                    let (path, text) = me
                        .send(crate::documents::handlers::BufferText {
                            id: *document_id,
                            version: *version,
                        })
                        .await
                        .map_err(mailbox)??;
                    (
                        ScriptRef::Buffer {
                            document_id: document_id.to_string(),
                            path,
                            version: *version,
                        },
                        text,
                    )
                }
            };
            freeze::check_code_size(&code, &limits)?;
            let script_path = match &script {
                ScriptRef::Disk { path } | ScriptRef::Buffer { path, .. } => path.clone(),
            };
            // 3. Resolve arguments to literals and frozen copies.
            let mut args = Vec::with_capacity(msg.args.len());
            for a in &msg.args {
                match a {
                    ArgSource::Literal(s) => args.push(ResolvedArg::Literal(s.clone())),
                    ArgSource::Resource { id, version } => {
                        let latest = me.send(LatestVersion(*id)).await.map_err(mailbox)??;
                        if *version != latest {
                            return Err(ActorError::Stale {
                                current_version: latest,
                            });
                        }
                        let (rec, bytes) = me
                            .send(LoadResource {
                                id: *id,
                                version: *version,
                                max_file_bytes: limits.max_file_bytes,
                            })
                            .await
                            .map_err(mailbox)?
                            .map_err(|e| match e {
                                FilesError::Actor(a) => a,
                                FilesError::Stale { .. } => ActorError::Stale {
                                    current_version: latest,
                                },
                            })?;
                        let (d, sha) = (dir.clone(), rec.facts.sha256.clone());
                        let path = blocking(move || freeze::frozen_copy(&d, &bytes, &sha)).await?;
                        args.push(ResolvedArg::Resource {
                            id: id.to_string(),
                            version: *version,
                            sha256: rec.facts.sha256.clone(),
                            path,
                        });
                    }
                }
            }
            // 4. Requirements are checked where the run will run, never installed.
            if !msg.requirements.is_empty() {
                let probe_rscript = match &slurm {
                    Some(s) => {
                        let (c, s) = (cx.clone(), s.clone());
                        blocking(move || crate::runs::slurm_place::probe_rscript(&c, &s)).await?
                    }
                    None => rscript.clone(),
                };
                let (rs, lib, reqs) = (
                    probe_rscript,
                    crate::requirements::handlers::library(&dir),
                    msg.requirements.clone(),
                );
                let now = rho_plumbing::time::now_ms();
                let probe = blocking(move || {
                    Ok(crate::requirements::probe::probe(
                        Some(&rs),
                        &lib,
                        &reqs,
                        now,
                    ))
                })
                .await?;
                if !probe.complete {
                    return Err(ActorError::unavailable(format!(
                        "the requirements could not be checked: {}",
                        probe.reason.unwrap_or_default()
                    )));
                }
                let unmet: Vec<String> = probe
                    .unmet()
                    .iter()
                    .map(|p| p.requirement.package.clone())
                    .collect();
                if !unmet.is_empty() {
                    return Err(ActorError::Unavailable {
                        missing: unmet.clone(),
                        reason: format!(
                            "required R packages are missing or too old: {} (prepare them with requirements.prepare)",
                            unmet.join(", ")
                        ),
                    });
                }
            }
            // 5. The run directory must be new.
            let run_directory = format!("runs/{op}");
            if dir.join(&run_directory).exists() {
                return Err(ActorError::conflict(format!(
                    "the run directory {run_directory}/ already exists"
                )));
            }
            let now = msg.ctx.time_ms;
            let script_digest = rho_plumbing::sha256_hex(code.as_bytes());
            let record = RunRecord {
                operation_id: op.clone(),
                submitter: msg.ctx.principal.to_string(),
                repair_of: msg.repair_of.clone(),
                plan: RunPlan {
                    output_directory: format!("{run_directory}/artifacts"),
                    completion: msg
                        .completion
                        .as_ref()
                        .map(|c| format!("{run_directory}/{c}")),
                    run_directory,
                    script_name: freeze::script_name(&script_path),
                    script,
                    code,
                    script_digest,
                    args,
                    requirements: msg.requirements.clone(),
                    artifacts: msg.artifacts.clone(),
                    core,
                    rscript: rscript.display().to_string(),
                    request_digest: rho_plumbing::hex::encode(&digest),
                },
                delivery: Delivery::NotSent,
                execution: Execution::Pending,
                exit: None,
                stop: None,
                stdout: LogFacts::default(),
                stderr: LogFacts::default(),
                inventory: None,
                delivery_note: None,
                accepted_at_ms: now,
                sent_at_ms: None,
                updated_at_ms: now,
            };
            // 6. Journal the accepted run and `sending` before anything is delivered.
            let accepted = me
                .send(AcceptRun {
                    record: Box::new(record),
                    ctx: msg.ctx.clone(),
                })
                .await
                .map_err(mailbox)??;
            match slurm {
                Some(target) => {
                    crate::runs::slurm::deliver(me, cx, accepted, target, state.watched.clone())
                        .await
                }
                None => deliver(me, dir, accepted, r_limits, state).await,
            }
            .map(Submitted::New)
        })
    }
}

/// Delivers a run journaled as `sending`, journals the outcome, starts supervision when sent.
/// A Host it starts is remembered as the service's (`state.hosts`).
pub(crate) async fn deliver(
    me: Addr<ProjectActor>,
    dir: PathBuf,
    run: RunRecord,
    limits: crate::limits::RLimits,
    state: ServiceState,
) -> Result<RunRecord, ActorError> {
    let op = run.operation_id.clone();
    let spec = host::spec(&dir, &op, &run.plan, &limits);
    let core = PathBuf::from(&run.plan.core.path);
    let d = dir.clone();
    let hosts = state.hosts.clone();
    // Fault injection (feature `failpoints`): `return(abort)` crashes the service here, with
    // `sending` durable and nothing asked of the Host yet.
    fail::fail_point!("runs::before_delivery", crash_or);
    let answer = tokio::task::spawn_blocking(move || host::deliver(&core, &d, spec, &hosts))
        .await
        .map_err(|e| ActorError::internal(e.to_string()))?;
    // ... and here, after the Host took the run and before its reply is journaled.
    fail::fail_point!("runs::after_delivery_before_journal", crash_or);
    let event = match answer {
        HostAnswer::Record(r) => RunEvent::Observed {
            operation_id: op.clone(),
            observation: host::observation(&r),
        },
        HostAnswer::NotFound => RunEvent::NotSent {
            operation_id: op.clone(),
            reason: "the Host did not record the run".into(),
        },
        HostAnswer::Refused(reason) | HostAnswer::NoHost(reason) => RunEvent::NotSent {
            operation_id: op.clone(),
            reason,
        },
        HostAnswer::Lost(_) => RunEvent::Uncertain {
            operation_id: op.clone(),
        },
    };
    let sent = matches!(event, RunEvent::Observed { .. });
    let record = me.send(LearnRun { event }).await.map_err(mailbox)??;
    if sent && record.execution == Execution::Running {
        crate::runs::watch::watch(me, dir, op, &state.watched);
    }
    Ok(record)
}

/// What an injected failure at a delivery fail point does: `abort` crashes the process (a
/// kill -9 at that point), anything else fails the delivery as unavailable.
#[cfg_attr(not(feature = "failpoints"), allow(dead_code))]
fn crash_or(arg: Option<String>) -> Result<RunRecord, ActorError> {
    if arg.as_deref() == Some("abort") {
        std::process::abort();
    }
    Err(ActorError::unavailable(
        "injected failure at a delivery fail point",
    ))
}
