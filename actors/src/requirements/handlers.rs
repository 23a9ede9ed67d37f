//! The project actor's requirements messages: the probe (`requirements.check`) and an explicit preparation.

use super::announce::{announce, Phase};
use super::entity::{PrepareOutcome, RequirementsCommand, RequirementsEntity};
use super::install::{cut_name, install, log_tail};
use super::model::{Probe, Repos, Requirement, Source};
use super::probe::probe;
use crate::child::{Execute, Query};
use crate::durable::{durable, written};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::identity::InputDigest;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::path::{Path, PathBuf};

/// The project library: `<project>/.rho/library`.
pub fn library(project: &Path) -> PathBuf {
    project.join(".rho").join("library")
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ActorError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| ActorError::internal(e.to_string()))
}

/// `requirements.check`: one bounded probe; changes nothing.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<Probe, ActorError>")]
pub struct CheckRequirements {
    pub requirements: Vec<Requirement>,
}

impl Handler<CheckRequirements> for ProjectActor {
    type Result = ResponseFuture<Result<Probe, ActorError>>;

    fn handle(&mut self, msg: CheckRequirements, _: &mut Context<Self>) -> Self::Result {
        let admitted = self.admit_read();
        let lib = library(self.dir());
        let rscript = self.r_config().rscript.clone();
        Box::pin(async move {
            admitted?;
            let now = rho_plumbing::time::now_ms();
            blocking(move || probe(rscript.as_deref(), &lib, &msg.requirements, now)).await
        })
    }
}

/// `requirements.prepare`.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<PrepareOutcome, ActorError>")]
pub struct PrepareRequirements {
    pub requirements: Vec<Requirement>,
    pub change_id: String,
    pub digest: InputDigest,
    pub ctx: CommandContext,
}

/// What a preparation does after its first probe.
enum Plan {
    Done(Box<PrepareOutcome>),
    Install {
        attempted: Vec<String>,
        repos: Vec<String>,
    },
}

fn plan(msg: &PrepareRequirements, configured: &Repos, first: &Probe) -> Result<Plan, ActorError> {
    if !first.complete {
        return Err(ActorError::Unavailable {
            missing: vec![],
            reason: format!(
                "the requirements probe is unknown: {}",
                first.reason.clone().unwrap_or_default()
            ),
        });
    }
    let unmet = first.unmet();
    let attempted: Vec<String> = unmet
        .iter()
        .map(|p| p.requirement.package.clone())
        .collect();
    let mut repos = Vec::new();
    let mut sources: Vec<Source> = unmet.iter().map(|p| p.requirement.source).collect();
    if sources.contains(&Source::Bioconductor) {
        // Bioconductor packages depend on CRAN packages.
        sources.push(Source::Cran);
    }
    sources.sort();
    sources.dedup();
    for s in sources {
        let urls = configured.for_source(s);
        if urls.is_empty() && unmet.iter().any(|p| p.requirement.source == s) {
            return Err(ActorError::Unavailable {
                missing: vec![],
                reason: format!(
                    "no {} repository is configured (start Rho with --r-repos or RHO_R_REPOS)",
                    s.name()
                ),
            });
        }
        repos.extend(urls.iter().cloned());
    }
    if attempted.is_empty() {
        return Ok(Plan::Done(Box::new(PrepareOutcome {
            change_id: msg.change_id.clone(),
            attempted,
            exit_code: None,
            cut: None,
            log_tail: String::new(),
            interrupted: false,
            recheck: Some(first.clone()),
            time_ms: first.time_ms,
        })));
    }
    Ok(Plan::Install { attempted, repos })
}

impl Handler<PrepareRequirements> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<PrepareOutcome, ActorError>>;

    fn handle(&mut self, msg: PrepareRequirements, ctx: &mut Context<Self>) -> Self::Result {
        if let Err(e) = self.admit() {
            return Box::pin(fut::ready(Err(e)));
        }
        let me = ctx.address();
        let pid = self.project_id();
        let child = self.children().get_or_new::<RequirementsEntity>(pid);
        let journal = self.journal().clone();
        let lib = library(self.dir());
        let r = self.r_config().clone();
        let (change_id, digest) = (msg.change_id.clone(), msg.digest);
        let gate = self.gate(&msg.ctx);
        let first = {
            let child = child.clone();
            let msg = msg.clone();
            let lib = lib.clone();
            let r = r.clone();
            let me = me.clone();
            async move {
                let known = child
                    .send(Query::<RequirementsEntity, _> {
                        read: Box::new(move |e: &RequirementsEntity| e.retry(&change_id, &digest)),
                    })
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))??;
                durable(&journal, known.wait_seq).await?;
                if let Some(done) = known.reply? {
                    return Ok(Plan::Done(Box::new(done)));
                }
                gate?;
                announce(&me, &msg.change_id, Phase::Checking, &[]);
                let (rs, reqs) = (r.rscript.clone(), msg.requirements.clone());
                let now = rho_plumbing::time::now_ms();
                let first = blocking(move || probe(rs.as_deref(), &lib, &reqs, now)).await?;
                plan(&msg, &r.repos, &first)
            }
        };
        Box::pin(first.into_actor(self).then(move |res, act, _| {
            let child = act.children().get_or_new::<RequirementsEntity>(pid);
            let start =
                |cmd: RequirementsCommand, ctx: CommandContext| Execute::<RequirementsEntity> {
                    command: cmd,
                    ctx: CommandContext {
                        identity: None,
                        ..ctx
                    },
                };
            let journal = act.journal().clone();
            let work = async move {
                let (attempted, repos, done) = match res? {
                    Plan::Done(done) => (done.attempted.clone(), Vec::new(), Some(*done)),
                    Plan::Install { attempted, repos } => (attempted, repos, None),
                };
                let started = child
                    .send(start(
                        RequirementsCommand::Start {
                            change_id: msg.change_id.clone(),
                            digest: msg.digest,
                            requirements: msg.requirements.clone(),
                            attempted: attempted.clone(),
                        },
                        msg.ctx.clone(),
                    ))
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))??;
                written(&me, &journal, started.wait_seq).await?;
                if let Some(original) = started.reply {
                    return Ok(original);
                }
                let outcome = match done {
                    Some(d) => d,
                    None => {
                        let rscript = r
                            .rscript
                            .clone()
                            .ok_or_else(|| ActorError::unavailable("no Rscript is available"))?;
                        let (l, p) = (lib.clone(), attempted.clone());
                        announce(&me, &msg.change_id, Phase::Installing, &attempted);
                        let ran = blocking(move || install(&rscript, &l, &repos, &p)).await?;
                        announce(&me, &msg.change_id, Phase::Rechecking, &attempted);
                        let reqs = msg.requirements.clone();
                        let rs = r.rscript.clone();
                        let now = rho_plumbing::time::now_ms();
                        let recheck =
                            blocking(move || probe(rs.as_deref(), &lib, &reqs, now)).await?;
                        match ran {
                            Ok(b) => PrepareOutcome {
                                change_id: msg.change_id.clone(),
                                attempted,
                                exit_code: b.exit_code,
                                cut: b.cut.map(|c| cut_name(c).to_string()),
                                log_tail: log_tail(&b),
                                interrupted: false,
                                recheck: Some(recheck),
                                time_ms: now,
                            },
                            Err(e) => PrepareOutcome {
                                change_id: msg.change_id.clone(),
                                attempted,
                                exit_code: None,
                                cut: None,
                                log_tail: e.to_string(),
                                interrupted: false,
                                recheck: Some(recheck),
                                time_ms: now,
                            },
                        }
                    }
                };
                let finished = child
                    .send(start(
                        RequirementsCommand::Finish { outcome },
                        msg.ctx.clone(),
                    ))
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))??;
                written(&me, &journal, finished.wait_seq).await?;
                announce(&me, &msg.change_id, Phase::Finished, &[]);
                finished
                    .reply
                    .ok_or_else(|| ActorError::internal("a finished preparation has no outcome"))
            };
            work.into_actor(act)
        }))
    }
}
