//! The ServiceActor: opens and supervises project actors by id; one broken project never stops the others.

use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::open::{create_project, open_project, OpenError, ProjectConfig};
use crate::project::{validate_name, ProjectCommand};
use crate::project_actor::{Close, Health, ProjectActor, ProjectWrite, Status};
use crate::Principal;
use actix::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;
use uuid::Uuid;

/// What the service knows of one project.
enum Slot {
    /// Registered, not open yet (opened on first use).
    Known,
    Open(Addr<ProjectActor>),
    /// Opening or reopening; callers wait for the outcome.
    Opening(Vec<tokio::sync::oneshot::Sender<Result<Addr<ProjectActor>, ActorError>>>),
    /// Could not be opened; the reason is reported and the next request tries again.
    Unavailable(String),
}

struct Entry {
    dir: PathBuf,
    slot: Slot,
}

/// The registry of open projects.
pub struct ServiceActor {
    config: ProjectConfig,
    projects: BTreeMap<Uuid, Entry>,
}

impl ServiceActor {
    pub fn new(config: ProjectConfig) -> Self {
        ServiceActor {
            config,
            projects: BTreeMap::new(),
        }
    }
}

impl Actor for ServiceActor {
    type Context = Context<Self>;
}

fn open_refusal(e: &OpenError) -> ActorError {
    match e {
        OpenError::Journal(rho_journal::JournalError::Corrupt { .. }) => {
            ActorError::unavailable(format!(
                "{e}; the project stays closed (inspect it with `rho journal inspect --verify`)"
            ))
        }
        _ => ActorError::unavailable(e.to_string()),
    }
}

/// Make a project known by id and folder (the registry's cached path); it opens on first use.
#[derive(Message)]
#[rtype(result = "()")]
pub struct Register {
    pub id: Uuid,
    pub dir: PathBuf,
}

impl Handler<Register> for ServiceActor {
    type Result = ();

    fn handle(&mut self, msg: Register, _: &mut Context<Self>) {
        self.projects.entry(msg.id).or_insert(Entry {
            dir: msg.dir,
            slot: Slot::Known,
        });
    }
}

/// The actor of an open project, opening it when needed.
#[derive(Message)]
#[rtype(result = "Result<Addr<ProjectActor>, ActorError>")]
pub struct GetProject {
    pub id: Uuid,
}

impl Handler<GetProject> for ServiceActor {
    type Result = ResponseFuture<Result<Addr<ProjectActor>, ActorError>>;

    fn handle(&mut self, msg: GetProject, ctx: &mut Context<Self>) -> Self::Result {
        let Some(entry) = self.projects.get_mut(&msg.id) else {
            return Box::pin(async {
                Err(ActorError::NotFound {
                    what: "project".into(),
                })
            });
        };
        if let Slot::Open(addr) = &entry.slot {
            if addr.connected() {
                let addr = addr.clone();
                // A failed project is closed and reopened from disk by this request.
                return Box::pin(async move {
                    match addr.send(Status).await {
                        Ok(s) if !matches!(s.health, Health::Failed(_)) => Ok(addr),
                        _ => Err(ActorError::unavailable(
                            "the project is being reopened; retry",
                        )),
                    }
                });
            }
            entry.slot = Slot::Known;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        match &mut entry.slot {
            Slot::Opening(waiters) => waiters.push(tx),
            _ => {
                entry.slot = Slot::Opening(vec![tx]);
                let dir = entry.dir.clone();
                let config = self.config.clone();
                let id = msg.id;
                let work = async move {
                    tokio::task::spawn_blocking(move || {
                        open_project(&dir, &config).map(|o| (o, config))
                    })
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))?
                    .map_err(|e| open_refusal(&e))
                };
                ctx.spawn(work.into_actor(self).map(move |res, act, _| {
                    let res = res.and_then(|(opened, config)| {
                        if opened.journal.project_id() != id {
                            return Err(ActorError::unavailable(format!(
                                "the folder holds project {} instead of {id}",
                                opened.journal.project_id()
                            )));
                        }
                        Ok(ProjectActor::new(opened, config).start())
                    });
                    if let Some(entry) = act.projects.get_mut(&id) {
                        let waiters = match std::mem::replace(&mut entry.slot, Slot::Known) {
                            Slot::Opening(w) => w,
                            _ => Vec::new(),
                        };
                        entry.slot = match &res {
                            Ok(addr) => Slot::Open(addr.clone()),
                            Err(e) => Slot::Unavailable(e.to_string()),
                        };
                        for w in waiters {
                            let _ = w.send(res.clone());
                        }
                    }
                }));
            }
        }
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(ActorError::internal("open abandoned")))
        })
    }
}

/// What a new or listed project looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectInfo {
    pub id: Uuid,
    pub name: String,
    pub dir: PathBuf,
}

/// Create a project in a new folder `root/name`; acknowledged once folder, journal and its
/// `project.created` event are durable.
#[derive(Message)]
#[rtype(result = "Result<ProjectInfo, ActorError>")]
pub struct CreateProject {
    pub root: PathBuf,
    pub name: String,
    pub principal: Principal,
}

impl Handler<CreateProject> for ServiceActor {
    type Result = ResponseActFuture<Self, Result<ProjectInfo, ActorError>>;

    fn handle(&mut self, msg: CreateProject, _: &mut Context<Self>) -> Self::Result {
        if let Err(e) = validate_name(&msg.name) {
            return Box::pin(fut::ready(Err(e)));
        }
        let id = Uuid::new_v4();
        let dir = msg.root.join(&msg.name);
        let config = self.config.clone();
        let name = msg.name.clone();
        let work = {
            let dir = dir.clone();
            async move {
                tokio::task::spawn_blocking(move || {
                    crate::fsutil::create_dir_durable(&dir).map_err(|e| match e.kind() {
                        std::io::ErrorKind::AlreadyExists => ActorError::Conflict {
                            reason: format!(
                                "a folder named {:?} already exists",
                                dir.file_name().unwrap_or_default()
                            ),
                        },
                        _ => ActorError::internal(format!("creating {}: {e}", dir.display())),
                    })?;
                    create_project(&dir, id, &config)
                        .map_err(|e| open_refusal(&e))
                        .map(|o| (o, config))
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
            }
        };
        Box::pin(work.into_actor(self).then(move |res, act, _| {
            let started = res.map(|(opened, config)| ProjectActor::new(opened, config).start());
            if let Ok(addr) = &started {
                act.projects.insert(
                    id,
                    Entry {
                        dir: dir.clone(),
                        slot: Slot::Open(addr.clone()),
                    },
                );
            }
            async move {
                let addr = started?;
                let ctx = CommandContext {
                    principal: msg.principal,
                    time_ms: chrono::Utc::now().timestamp_millis(),
                    identity: None,
                };
                addr.send(ProjectWrite {
                    command: ProjectCommand::Create {
                        id,
                        name: name.clone(),
                    },
                    ctx,
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
                Ok(ProjectInfo { id, name, dir })
            }
            .into_actor(act)
        }))
    }
}

/// Every known project with its availability.
#[derive(Message)]
#[rtype(result = "Vec<ProjectListing>")]
pub struct ListProjects;

/// One row of [`ListProjects`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectListing {
    pub id: Uuid,
    pub dir: PathBuf,
    pub open: bool,
    pub unavailable: Option<String>,
}

impl Handler<ListProjects> for ServiceActor {
    type Result = MessageResult<ListProjects>;

    fn handle(&mut self, _: ListProjects, _: &mut Context<Self>) -> Self::Result {
        MessageResult(
            self.projects
                .iter()
                .map(|(id, e)| ProjectListing {
                    id: *id,
                    dir: e.dir.clone(),
                    open: matches!(e.slot, Slot::Open(_)),
                    unavailable: match &e.slot {
                        Slot::Unavailable(r) => Some(r.clone()),
                        _ => None,
                    },
                })
                .collect(),
        )
    }
}

/// Close every open project in order (clean-shutdown markers, leases released).
#[derive(Message)]
#[rtype(result = "Vec<(Uuid, Result<(), ActorError>)>")]
pub struct CloseAll;

impl Handler<CloseAll> for ServiceActor {
    type Result = ResponseFuture<Vec<(Uuid, Result<(), ActorError>)>>;

    fn handle(&mut self, _: CloseAll, _: &mut Context<Self>) -> Self::Result {
        let open: Vec<(Uuid, Addr<ProjectActor>)> = self
            .projects
            .iter_mut()
            .filter_map(
                |(id, e)| match std::mem::replace(&mut e.slot, Slot::Known) {
                    Slot::Open(addr) => Some((*id, addr)),
                    other => {
                        e.slot = other;
                        None
                    }
                },
            )
            .collect();
        Box::pin(async move {
            let mut out = Vec::new();
            for (id, addr) in open {
                let res = addr
                    .send(Close)
                    .await
                    .unwrap_or_else(|e| Err(ActorError::internal(e.to_string())));
                out.push((id, res));
            }
            out
        })
    }
}

/// Open the project in a folder and register it under the id its journal holds.
#[derive(Message)]
#[rtype(result = "Result<Uuid, ActorError>")]
pub struct OpenDir {
    pub dir: PathBuf,
}

impl Handler<OpenDir> for ServiceActor {
    type Result = ResponseActFuture<Self, Result<Uuid, ActorError>>;

    fn handle(&mut self, msg: OpenDir, _: &mut Context<Self>) -> Self::Result {
        let config = self.config.clone();
        let dir = msg.dir.clone();
        let work = async move {
            tokio::task::spawn_blocking(move || open_project(&dir, &config).map(|o| (o, config)))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
                .map_err(|e| open_refusal(&e))
        };
        Box::pin(work.into_actor(self).map(move |res, act, _| {
            let (opened, config) = res?;
            let id = opened.journal.project_id();
            if let Some(existing) = act.projects.get(&id) {
                return Err(ActorError::Conflict {
                    reason: format!(
                        "project {id} is already registered at {}",
                        existing.dir.display()
                    ),
                });
            }
            let addr = ProjectActor::new(opened, config).start();
            act.projects.insert(
                id,
                Entry {
                    dir: msg.dir,
                    slot: Slot::Open(addr),
                },
            );
            Ok(id)
        }))
    }
}
