//! Managed `r.execute` runs on a Slurm place (issue 19, decisions 0535, 0536): the place
//! resolved at submission, the job submitted with the run id in its name and its id journaled
//! before it is trusted, followed to its end (outputs then registered as for the Core Host's
//! runs), cancelled with `scancel`, and after a restart followed again; a doubt makes the run
//! unknown, never a second submission. A cluster behind a login node runs its commands over
//! that ssh place (`slurm_login`).

use super::entity::RunEvent;
use super::handlers::state::LearnRun;
use super::model::*;
use super::slurm_facts::{local_logs, observation};
use super::slurm_login;
use super::watch::Watched;
use crate::error::ActorError;
use crate::kernel::contract::SshAt;
use crate::kernel::places::RemoteRuntime;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::host::paths;
use rho_kernels::remote::slurm::{self as job, BatchSpec, Observed, SubmitError};
use rho_kernels::remote::{SlurmClient, SshPlace};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Each Slurm command's bound.
pub(crate) const COMMAND_TIMEOUT: Duration = Duration::from_secs(20);
/// How often a running job is looked at (through a login node: each look is a few ssh calls).
const POLL: Duration = Duration::from_millis(200);
const POLL_VIA: Duration = Duration::from_millis(500);

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

/// The login node a run's cluster is reached through, as its ssh place was defined when the
/// run was accepted, and the run's own folder there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmLogin {
    /// The ssh place's name.
    pub via: String,
    pub destination: String,
    pub args: Vec<String>,
    /// The run's folder there (relative to the login's folder, or absolute).
    pub folder: String,
}

/// A run's Slurm side: where it went and, once sbatch answered, its job id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmRun {
    pub target: SlurmTarget,
    pub job_id: Option<String>,
    /// Through a login node: its ssh place and the run's folder there.
    #[serde(default)]
    pub login: Option<SlurmLogin>,
}

/// What following Slurm runs needs of the service: the project folder, the bounds, and the
/// person's ssh for a login node.
#[derive(Debug, Clone)]
pub(crate) struct SlurmCtx {
    pub dir: PathBuf,
    /// `r.maxLogBytes`: each log's head kept.
    pub max_log_bytes: u64,
    /// `kernel.remoteCopyBytes` and `kernel.remoteCopyTimeoutMs`: a run's inputs together, and
    /// each output copied back.
    pub copy_bytes: u64,
    pub copy_timeout: Duration,
    pub remote: RemoteRuntime,
}

impl SlurmCtx {
    pub(crate) fn of(p: &ProjectActor) -> SlurmCtx {
        let l = p.config_limits();
        SlurmCtx {
            dir: p.dir().to_path_buf(),
            max_log_bytes: l.r.max_log_bytes,
            copy_bytes: l.kernel.remote_copy_bytes,
            copy_timeout: Duration::from_millis(l.kernel.remote_copy_timeout_ms),
            remote: p.config().kernel.remote.clone(),
        }
    }

    /// The login node's ssh place, if the run goes through one.
    pub(crate) fn login(&self, s: &SlurmRun) -> Result<Option<SshPlace>, ActorError> {
        s.login
            .as_ref()
            .map(|l| {
                self.remote.ssh_place(&SshAt {
                    destination: l.destination.clone(),
                    args: l.args.clone(),
                })
            })
            .transpose()
    }
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(format!("project mailbox: {e}"))
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

/// Submits a run journaled `sending`: where it goes first (`placed`, its job id unknown), then
/// sbatch; the job id is journaled before anything uses it. A refusal is `not-sent`; a doubt
/// `uncertain` (never submitted again).
pub(crate) async fn deliver(
    me: Addr<ProjectActor>,
    cx: SlurmCtx,
    run: RunRecord,
    placed: SlurmRun,
    watched: Watched,
) -> Result<RunRecord, ActorError> {
    let op = run.operation_id.clone();
    let target = placed.target.clone();
    let event = match placed.login.clone() {
        None => RunEvent::SlurmPlaced {
            operation_id: op.clone(),
            target: target.clone(),
        },
        Some(login) => RunEvent::SlurmPlacedVia {
            operation_id: op.clone(),
            target: target.clone(),
            login,
        },
    };
    me.send(LearnRun { event }).await.map_err(mailbox)??;
    let place = cx.login(&placed)?;
    let (c, plan, o) = (cx.clone(), run.plan.clone(), op.clone());
    let submitted = off_thread(move || match (&place, &placed.login) {
        (Some(p), Some(l)) => slurm_login::submit(&c, p, &o, &plan, &placed.target, l),
        _ => submit(&c.dir, &o, &plan, &placed.target),
    })
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
        follow(me, cx, op, &watched);
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

/// Looks at the job once: the event it means, and whether the run is over. Through a login
/// node its logs are read back and, once it ended, its outputs copied back first; a login node
/// that does not answer is asked again, like a controller.
pub(crate) async fn look(cx: &SlurmCtx, run: &RunRecord, s: &SlurmRun) -> Option<(RunEvent, bool)> {
    let op = run.operation_id.clone();
    let Some(job_id) = s.job_id.clone() else {
        // Placed but never answered: a doubt, never a second submission.
        return Some((RunEvent::Uncertain { operation_id: op }, true));
    };
    let place = match cx.login(s) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(operation = %op, error = %e, "the run's login node cannot be reached now");
            return None;
        }
    };
    let (client, o, c, plan, login) = (
        s.target.client(),
        op.clone(),
        cx.clone(),
        run.plan.clone(),
        s.login.clone(),
    );
    // Off the actor's thread. The job completion log's path is asked of the controller only
    // when neither it nor accounting knows the job (the rare case, not every poll).
    let seen = off_thread(move || {
        let p = place.as_ref();
        let mut seen = job::observe(&client, p, &job_id, &o, None, COMMAND_TIMEOUT);
        if matches!(seen, Ok(Observed::Unknown(_))) {
            if let Ok(Some(path)) = job::jobcomp_path(&client, p, COMMAND_TIMEOUT) {
                seen = job::observe(&client, p, &job_id, &o, Some(&path), COMMAND_TIMEOUT);
            }
        }
        let Ok(Observed::Job(f)) = seen else {
            return seen.map(|s| (s, None));
        };
        let logs = match (p, &login) {
            (Some(p), Some(l)) => slurm_login::fetch(&c, p, &o, &plan, l, f.ended())?,
            _ => local_logs(&c.dir, &o, c.max_log_bytes, f.ended()),
        };
        Ok((Observed::Job(f), Some(logs)))
    })
    .await?;
    match seen {
        Ok((Observed::Job(f), Some(logs))) => {
            let o = observation(&cx.dir, &run.plan, &f, run.stop.as_ref(), logs);
            let done = o.execution.is_over();
            Some((
                RunEvent::Observed {
                    operation_id: op,
                    observation: o,
                },
                done,
            ))
        }
        Ok((Observed::NotOurs { name }, _)) => {
            tracing::warn!(operation = %op, %name, "the run's job id names another job: its execution is unknown");
            Some((RunEvent::ExecutionUnknown { operation_id: op }, true))
        }
        Ok((Observed::Unknown(why), _)) => {
            tracing::warn!(operation = %op, %why, "no Slurm source knows the run's job: its execution is unknown");
            Some((RunEvent::ExecutionUnknown { operation_id: op }, true))
        }
        Ok((Observed::Job(_), None)) => None,
        Err(e) => {
            tracing::warn!(operation = %op, error = %e, "the Slurm controller or the login node did not answer; asking again");
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
pub(crate) fn follow(me: Addr<ProjectActor>, cx: SlurmCtx, op: String, watched: &Watched) {
    let Some(release) = watched.claim(&cx.dir, &op) else {
        return;
    };
    let over = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    super::announce::follow(me.clone(), cx.dir.clone(), op.clone(), over.clone());
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
            match look(&cx, &run, &s).await {
                Some((event, done)) => {
                    if !matches!(me.send(LearnRun { event }).await, Ok(Ok(_))) || done {
                        break;
                    }
                    let poll = if s.login.is_some() { POLL_VIA } else { POLL };
                    tokio::time::sleep(poll).await;
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
pub(crate) async fn cancel(cx: &SlurmCtx, run: &RunRecord, s: &SlurmRun) -> Option<RunEvent> {
    let job_id = s.job_id.clone()?;
    let client = s.target.client();
    let place = match cx.login(s) {
        Ok(p) => p,
        Err(e) => {
            tracing::warn!(operation = %run.operation_id, error = %e, "scancel: the login node cannot be reached now");
            return None;
        }
    };
    let cancelled =
        off_thread(move || job::cancel(&client, place.as_ref(), &job_id, COMMAND_TIMEOUT)).await?;
    if let Err(e) = cancelled {
        tracing::warn!(operation = %run.operation_id, error = %e, "scancel failed");
        return None;
    }
    look(cx, run, s).await.map(|(e, _)| e)
}
