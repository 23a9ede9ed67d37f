//! Managed `r.execute` runs on a Slurm place (issue 19, decision 0535): the place resolved at
//! submission, the job submitted with the run id in its name and its id journaled before it is
//! trusted, followed to its end (outputs then registered as for the Core Host's runs),
//! cancelled with `scancel`, and after a restart followed again; a doubt makes the run unknown,
//! never a second submission.

use super::entity::{Observation, RunEvent};
use super::handlers::state::LearnRun;
use super::model::*;
use super::watch::Watched;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::host::paths;
use rho_kernels::remote::slurm::{self as job, BatchSpec, JobFacts, Observed, SubmitError};
use rho_kernels::remote::SlurmClient;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Each Slurm command's bound.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// How often a running job is looked at.
const POLL: Duration = Duration::from_millis(200);

/// Where a run goes, as resolved from its place when it was accepted (journaled, so a later
/// change of the place's definition does not change where the run is followed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmTarget {
    pub place: String,
    pub bin: Option<String>,
    pub conf: Option<String>,
    pub partition: Option<String>,
    /// The Rscript on the cluster's nodes.
    pub rscript: String,
}

impl SlurmTarget {
    pub fn client(&self) -> SlurmClient {
        SlurmClient {
            bin: self.bin.as_ref().map(PathBuf::from),
            conf: self.conf.as_ref().map(PathBuf::from),
            partition: self.partition.clone(),
        }
    }
}

/// A run's Slurm side: where it went and, once sbatch answered, its job id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmRun {
    pub target: SlurmTarget,
    pub job_id: Option<String>,
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(format!("project mailbox: {e}"))
}

/// The Slurm place named `place`, read from the project's places (only a cluster on this
/// machine: its nodes see the project folder).
pub(crate) async fn target(
    me: &Addr<ProjectActor>,
    place: &str,
) -> Result<SlurmTarget, ActorError> {
    let kernel = me
        .send(crate::kernel::handlers::KernelPort)
        .await
        .map_err(mailbox)??;
    let name = place.to_string();
    let def = kernel
        .read(move |k: &crate::kernel::KernelEntity| {
            k.places.place(&name).map(|p| p.definition.clone())
        })
        .await?
        .ok_or_else(|| ActorError::NotFound {
            what: format!("place {place}"),
        })?;
    let slurm = def.slurm.ok_or_else(|| {
        ActorError::invalid(
            "input.place",
            format!("{place} is not a Slurm place: runs go to this machine or to a Slurm cluster"),
        )
    })?;
    if slurm.via.is_some() {
        return Err(ActorError::unavailable(format!(
            "{place} reaches its cluster through a login node: runs need the project folder on the cluster's file system, which is not built for a cluster behind ssh"
        )));
    }
    Ok(SlurmTarget {
        place: place.to_string(),
        bin: slurm.bin,
        conf: slurm.conf,
        partition: slurm.partition,
        rscript: def.rscript.unwrap_or_else(|| "Rscript".into()),
    })
}

/// A program that runs Rscript where the run will run (`srun` on the cluster), for the
/// requirements probe: written under `.rho/slurm/`.
pub(crate) fn probe_rscript(dir: &Path, t: &SlurmTarget) -> Result<PathBuf, ActorError> {
    use std::os::unix::fs::PermissionsExt;
    let client = t.client();
    let mut argv = vec![
        client.program("srun"),
        "--quiet".into(),
        "--nodes=1".into(),
        "--ntasks=1".into(),
        "--job-name=rho-requirements".into(),
    ];
    if let Some(p) = &client.partition {
        argv.push(format!("--partition={p}"));
    }
    argv.push(t.rscript.clone());
    let line = client
        .shell_line(&argv)
        .map_err(|e| ActorError::invalid("input.place", e.to_string()))?;
    let folder = dir.join(".rho/slurm");
    std::fs::create_dir_all(&folder).map_err(|e| ActorError::internal(e.to_string()))?;
    let path = folder.join(format!("rscript-{}.sh", t.place));
    std::fs::write(&path, format!("#!/bin/sh\n{line} \"$@\"\n"))
        .map_err(|e| ActorError::internal(e.to_string()))?;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o700))
        .map_err(|e| ActorError::internal(e.to_string()))?;
    Ok(path)
}

/// Runs `f` on a plain thread (a stopping service never waits for it).
async fn off_thread<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> Option<T> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("slurm".into())
        .spawn(move || {
            let _ = tx.send(f());
        })
        .ok()?;
    rx.await.ok()
}

/// Submits a run journaled `sending`: its target first, then sbatch; the job id is journaled
/// before anything uses it. A refusal is `not-sent`; a doubt `uncertain` (never submitted again).
pub(crate) async fn deliver(
    me: Addr<ProjectActor>,
    dir: PathBuf,
    run: RunRecord,
    target: SlurmTarget,
    watched: Watched,
) -> Result<RunRecord, ActorError> {
    let op = run.operation_id.clone();
    me.send(LearnRun {
        event: RunEvent::SlurmPlaced {
            operation_id: op.clone(),
            target: target.clone(),
        },
    })
    .await
    .map_err(mailbox)??;
    let (d, plan, t, o) = (dir.clone(), run.plan.clone(), target.clone(), op.clone());
    let submitted = off_thread(move || submit(&d, &o, &plan, &t))
        .await
        .unwrap_or_else(|| Err(SubmitError::Doubt("the submitting thread ended".into())));
    let event = match submitted {
        Ok(job_id) => {
            me.send(LearnRun {
                event: RunEvent::SlurmJob {
                    operation_id: op.clone(),
                    job_id: job_id.clone(),
                },
            })
            .await
            .map_err(mailbox)??;
            RunEvent::Sent {
                operation_id: op.clone(),
            }
        }
        Err(SubmitError::Refused(reason)) => RunEvent::NotSent {
            operation_id: op.clone(),
            reason: format!("the Slurm place {}: {reason}", target.place),
        },
        Err(SubmitError::Doubt(reason)) => {
            tracing::warn!(operation = %op, %reason, "a Slurm submission's answer was lost: the run is uncertain, never submitted again");
            RunEvent::Uncertain {
                operation_id: op.clone(),
            }
        }
    };
    let record = me.send(LearnRun { event }).await.map_err(mailbox)??;
    if record.execution == Execution::Running {
        follow(me, dir, op, &watched);
    }
    Ok(record)
}

/// Writes the frozen script and the run's folders, then `sbatch`.
fn submit(dir: &Path, op: &str, plan: &RunPlan, t: &SlurmTarget) -> Result<String, SubmitError> {
    let local = |e: std::io::Error| SubmitError::Refused(format!("the run's files: {e}"));
    let script = paths::script_path(dir, op, &plan.script_name);
    if let Some(parent) = script.parent() {
        std::fs::create_dir_all(parent).map_err(local)?;
    }
    std::fs::create_dir_all(dir.join(&plan.output_directory)).map_err(local)?;
    std::fs::write(&script, &plan.code).map_err(local)?;
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let line = job::rscript_line(
        &text(dir),
        &text(&crate::requirements::handlers::library(dir)),
        &t.rscript,
        &text(&script),
        &text(&dir.join(&plan.output_directory)),
        &super::freeze::arg_texts(&plan.args),
    )
    .map_err(|e| SubmitError::Refused(e.to_string()))?;
    job::submit(
        &t.client(),
        None,
        &BatchSpec {
            run_id: op.to_string(),
            script: line,
            workdir: text(dir),
            stdout: text(&paths::stdout_path(dir, op)),
            stderr: text(&paths::stderr_path(dir, op)),
        },
        COMMAND_TIMEOUT,
    )
}

/// The declared artifacts as the job left them.
fn inventory(dir: &Path, plan: &RunPlan) -> Vec<InventoryEntry> {
    use sha2::{Digest, Sha256};
    plan.artifacts
        .iter()
        .map(|a| {
            let path = dir.join(&plan.output_directory).join(&a.path);
            let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
            let data = regular.then(|| std::fs::read(&path).ok()).flatten();
            InventoryEntry {
                path: a.path.clone(),
                bytes: data.as_ref().map(|d| d.len() as u64),
                sha256: data.map(|d| rho_plumbing::hex::encode(&Sha256::digest(&d))),
            }
        })
        .collect()
}

fn log(path: &Path) -> LogFacts {
    LogFacts {
        bytes: std::fs::metadata(path).map_or(0, |m| m.len()),
        truncated: false,
    }
}

/// What a job's facts mean for the run (`stop`: the run's stop facts so far).
pub(crate) fn observation(
    dir: &Path,
    op: &str,
    plan: &RunPlan,
    f: &JobFacts,
    stop: Option<&StopFacts>,
) -> Observation {
    let ended = f.ended();
    let exit = ended.then(|| ExitFacts {
        exit_code: if f.signal.is_some() {
            None
        } else {
            f.exit_code
        },
        signal: f.signal,
        spawn_error: (!matches!(f.state.as_str(), "COMPLETED" | "FAILED" | "CANCELLED"))
            .then(|| format!("Slurm ended the job {}: {}", f.job_id, f.state)),
        ended_at_ms: Some(rho_plumbing::time::now_ms()),
    });
    Observation {
        execution: if ended {
            Execution::Exited
        } else {
            Execution::Running
        },
        exit: exit.clone(),
        stop: stop.map(|s| StopFacts {
            state: match (ended, f.state.as_str()) {
                (true, "CANCELLED") => StopState::Stopped,
                (true, _) => StopState::FinishedFirst,
                (false, _) => StopState::Signalled,
            },
            requested_by: s.requested_by.clone(),
            at_ms: s.at_ms,
            core_exit: exit,
        }),
        stdout: log(&paths::stdout_path(dir, op)),
        stderr: log(&paths::stderr_path(dir, op)),
        inventory: ended.then(|| inventory(dir, plan)),
    }
}

/// Looks at the job once: the event it means, and whether the run is over.
pub(crate) async fn look(dir: &Path, run: &RunRecord, s: &SlurmRun) -> Option<(RunEvent, bool)> {
    let op = run.operation_id.clone();
    let Some(job_id) = s.job_id.clone() else {
        // Placed but never answered: a doubt, never a second submission.
        return Some((RunEvent::Uncertain { operation_id: op }, true));
    };
    let (client, o) = (s.target.client(), op.clone());
    // Off the actor's thread. The job completion log's path is asked of the controller only
    // when neither it nor accounting knows the job (the rare case, not every poll).
    let seen = off_thread(move || {
        let seen = job::observe(&client, None, &job_id, &o, None, COMMAND_TIMEOUT);
        if !matches!(seen, Ok(Observed::Unknown(_))) {
            return seen;
        }
        match job::jobcomp_path(&client, None, COMMAND_TIMEOUT) {
            Ok(Some(path)) => {
                job::observe(&client, None, &job_id, &o, Some(&path), COMMAND_TIMEOUT)
            }
            _ => seen,
        }
    })
    .await?;
    match seen {
        Ok(Observed::Job(f)) => {
            let o = observation(dir, &op, &run.plan, &f, run.stop.as_ref());
            let done = o.execution.is_over();
            Some((
                RunEvent::Observed {
                    operation_id: op,
                    observation: o,
                },
                done,
            ))
        }
        Ok(Observed::NotOurs { name }) => {
            tracing::warn!(operation = %op, %name, "the run's job id names another job: its execution is unknown");
            Some((RunEvent::ExecutionUnknown { operation_id: op }, true))
        }
        Ok(Observed::Unknown(why)) => {
            tracing::warn!(operation = %op, %why, "no Slurm source knows the run's job: its execution is unknown");
            Some((RunEvent::ExecutionUnknown { operation_id: op }, true))
        }
        Err(e) => {
            tracing::warn!(operation = %op, error = %e, "the Slurm controller did not answer; asking again");
            None
        }
    }
}

/// The Slurm side of run `op`, if it went to a cluster.
#[derive(Message)]
#[rtype(result = "Result<Option<SlurmRun>, ActorError>")]
pub struct SlurmOf(pub String);

impl Handler<SlurmOf> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<Option<SlurmRun>, ActorError>>;

    fn handle(&mut self, msg: SlurmOf, _: &mut Context<Self>) -> Self::Result {
        let pid = self.project_id();
        let child = self.children().get_or_new::<super::entity::RunsEntity>(pid);
        let read = Box::new(move |e: &super::entity::RunsEntity| e.slurm.get(&msg.0).cloned());
        Box::pin(
            self.dispatch(
                child,
                crate::child::Query::<super::entity::RunsEntity, Option<SlurmRun>> { read },
                false,
            )
            .map(|r, _, _| r),
        )
    }
}

/// Follows a submitted run until its job ends (one follower per run per service).
pub(crate) fn follow(me: Addr<ProjectActor>, dir: PathBuf, op: String, watched: &Watched) {
    let Some(release) = watched.claim(&dir, &op) else {
        return;
    };
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    super::announce::follow(me.clone(), dir.clone(), op.clone(), over.clone());
    actix::spawn(async move {
        loop {
            let (Ok(Ok(Some(s))), Ok(Ok(mut runs))) = (
                me.send(SlurmOf(op.clone())).await,
                me.send(super::handlers::state::ReadRuns {
                    operation_id: Some(op.clone()),
                })
                .await,
            ) else {
                break;
            };
            let Some(run) = runs.pop() else { break };
            match look(&dir, &run, &s).await {
                Some((event, done)) => {
                    if !matches!(me.send(LearnRun { event }).await, Ok(Ok(_))) || done {
                        break;
                    }
                    tokio::time::sleep(POLL).await;
                }
                None => tokio::time::sleep(Duration::from_secs(1)).await,
            }
        }
        over.store(true, std::sync::atomic::Ordering::SeqCst);
        release();
    });
}

/// `action.cancel` of a Slurm run (its stop request already journaled): `scancel`, then the
/// job as it stands.
pub(crate) async fn cancel(dir: &Path, run: &RunRecord, s: &SlurmRun) -> Option<RunEvent> {
    let job_id = s.job_id.clone()?;
    let client = s.target.client();
    let cancelled =
        off_thread(move || job::cancel(&client, None, &job_id, COMMAND_TIMEOUT)).await?;
    if let Err(e) = cancelled {
        tracing::warn!(operation = %run.operation_id, error = %e, "scancel failed");
        return None;
    }
    look(dir, run, s).await.map(|(e, _)| e)
}
