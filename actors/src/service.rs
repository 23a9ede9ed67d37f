//! The ServiceActor: the registry of projects by id; opens and supervises project actors; one broken project never stops the others.

use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::open::{create_project, journal_dir, open_project, OpenError, ProjectConfig};
use crate::project::{validate_name, ProjectCommand};
use crate::project_actor::{Close, Health, ProjectActor, ProjectRead, ProjectWrite, Status};
use crate::registry::{ProjectRecord, Registry};
use crate::runs::host::OwnedHosts;
use crate::service_state::ServiceState;
use crate::Principal;
use actix::prelude::*;
use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use uuid::Uuid;

type Opened = Result<Addr<ProjectActor>, ActorError>;

/// What the service knows of one project.
enum Slot {
    /// Registered, not open yet.
    Known,
    Open(Addr<ProjectActor>),
    /// Opening; callers wait for the outcome.
    Opening(Vec<tokio::sync::oneshot::Sender<Opened>>),
    /// Could not be opened; the reason is reported and the next request tries again.
    Unavailable(String),
}

struct Entry {
    dir: PathBuf,
    name: String,
    slot: Slot,
}

/// The registry of open projects.
pub struct ServiceActor {
    config: ProjectConfig,
    registry: Registry,
    root: PathBuf,
    projects: BTreeMap<Uuid, Entry>,
}

impl ServiceActor {
    /// A service over `root` (canonical) whose registered projects come from `registry`. Its
    /// projects share a fresh `ServiceState` (never another service's).
    pub fn new(
        mut config: ProjectConfig,
        registry: Registry,
        root: PathBuf,
    ) -> Result<Self, ActorError> {
        config.service = ServiceState::default();
        let mut projects = BTreeMap::new();
        for rec in registry
            .projects()
            .map_err(|e| ActorError::internal(e.to_string()))?
        {
            projects.insert(
                rec.id,
                Entry {
                    dir: rec.path,
                    name: rec.name,
                    slot: Slot::Known,
                },
            );
        }
        Ok(ServiceActor {
            config,
            registry,
            root,
            projects,
        })
    }

    /// Opens project `id` (or joins an open in progress); resolves to its actor.
    pub(crate) fn ensure_open(
        &mut self,
        id: Uuid,
        ctx: &mut Context<Self>,
    ) -> std::pin::Pin<Box<dyn Future<Output = Opened>>> {
        let Some(entry) = self.projects.get_mut(&id) else {
            return Box::pin(async {
                Err(ActorError::NotFound {
                    what: "project".into(),
                })
            });
        };
        if let Slot::Open(addr) = &entry.slot {
            if addr.connected() {
                let addr = addr.clone();
                return Box::pin(async move {
                    match addr.send(Status).await {
                        Ok(s) if !matches!(s.health, Health::Failed(_)) => Ok(addr),
                        _ => Err(ActorError::unavailable(
                            "the project is being reopened from disk; retry",
                        )),
                    }
                });
            }
            entry.slot = Slot::Known;
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        if let Slot::Opening(waiters) = &mut entry.slot {
            waiters.push(tx);
        } else {
            entry.slot = Slot::Opening(vec![tx]);
            let dir = entry.dir.clone();
            let config = self.config.clone();
            let work = blocking(move || open_project(&dir, &config).map_err(|e| open_refusal(&e)));
            ctx.spawn(work.into_actor(self).map(move |res, act, _| {
                let res = res.and_then(|opened| {
                    if opened.journal.project_id() != id {
                        return Err(ActorError::unavailable(format!(
                            "the folder now holds project {} instead of {id}",
                            opened.journal.project_id()
                        )));
                    }
                    Ok(ProjectActor::new(opened, act.config.clone()).start())
                });
                act.settle(id, res);
            }));
        }
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(ActorError::internal("open abandoned")))
        })
    }

    fn settle(&mut self, id: Uuid, res: Opened) {
        let Some(entry) = self.projects.get_mut(&id) else {
            return;
        };
        let waiters = match std::mem::replace(&mut entry.slot, Slot::Known) {
            Slot::Opening(w) => w,
            _ => Vec::new(),
        };
        entry.slot = match &res {
            Ok(addr) => Slot::Open(addr.clone()),
            Err(e) => {
                tracing::warn!(project = %id, dir = %entry.dir.display(), reason = %e, "project unavailable");
                Slot::Unavailable(e.to_string())
            }
        };
        for w in waiters {
            let _ = w.send(res.clone());
        }
    }

    /// Tells observers that a project was created, registered or changed availability.
    fn announce(&self, info: &ProjectInfo) {
        if let Some(bus) = &self.config.events {
            bus.publish(
                "project.changed",
                Some(info.id),
                serde_json::json!({"name": info.name, "path": info.dir}),
            );
        }
    }

    /// The Core Hosts this service started (for its shutdown).
    pub fn started_hosts(&self) -> OwnedHosts {
        self.config.service.hosts.clone()
    }

    fn by_path(&self, dir: &Path) -> Option<(Uuid, &Entry)> {
        self.projects
            .iter()
            .find(|(_, e)| e.dir == dir)
            .map(|(id, e)| (*id, e))
    }
}

impl Actor for ServiceActor {
    type Context = Context<Self>;
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ActorError> + Send + 'static,
) -> Result<T, ActorError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(ActorError::internal(e.to_string())))
}

fn open_refusal(e: &OpenError) -> ActorError {
    match e {
        OpenError::Journal(rho_journal::JournalError::Corrupt { .. }) => ActorError::unavailable(
            format!("{e}; the project stays closed until an operator repairs it"),
        ),
        _ => ActorError::unavailable(e.to_string()),
    }
}

/// The project id a folder's journal holds, read without opening or changing anything.
fn journal_project_id(dir: &Path) -> Option<Uuid> {
    rho_journal::inspect::scan_with(&journal_dir(dir), false, |_| {})
        .ok()?
        .project_id
}

/// What a new, opened or listed project looks like.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectInfo {
    pub id: Uuid,
    pub name: String,
    pub dir: PathBuf,
}

/// Open every registered project (at service start); answers each outcome.
#[derive(Message)]
#[rtype(result = "Vec<(Uuid, Result<(), ActorError>)>")]
pub struct OpenAll;

impl Handler<OpenAll> for ServiceActor {
    type Result = ResponseFuture<Vec<(Uuid, Result<(), ActorError>)>>;

    fn handle(&mut self, _: OpenAll, ctx: &mut Context<Self>) -> Self::Result {
        let ids: Vec<Uuid> = self.projects.keys().copied().collect();
        let futures: Vec<_> = ids
            .iter()
            .map(|id| (*id, self.ensure_open(*id, ctx)))
            .collect();
        Box::pin(async move {
            let mut out = Vec::new();
            for (id, f) in futures {
                out.push((id, f.await.map(|_| ())));
            }
            out
        })
    }
}

/// The actor of a registered project, opening it when needed.
#[derive(Message)]
#[rtype(result = "Result<Addr<ProjectActor>, ActorError>")]
pub struct GetProject {
    pub id: Uuid,
}

impl Handler<GetProject> for ServiceActor {
    type Result = ResponseFuture<Opened>;

    fn handle(&mut self, msg: GetProject, ctx: &mut Context<Self>) -> Self::Result {
        self.ensure_open(msg.id, ctx)
    }
}

/// Journals `project.created`, registers the project (flushed) and answers its info.
async fn finish_create(
    addr: Addr<ProjectActor>,
    registry: Registry,
    id: Uuid,
    name: String,
    dir: PathBuf,
    principal: Principal,
) -> Result<ProjectInfo, ActorError> {
    let ctx = CommandContext {
        principal,
        time_ms: rho_plumbing::time::now_ms(),
        identity: None,
        needs: Vec::new(),
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
    let rec = ProjectRecord {
        id,
        name: name.clone(),
        path: dir.clone(),
    };
    blocking(move || {
        registry
            .put_project(&rec)
            .map_err(|e| ActorError::internal(e.to_string()))
    })
    .await?;
    Ok(ProjectInfo { id, name, dir })
}

/// Create a project in a new folder `<root>/<name>`. Acknowledged once folder, journal,
/// `project.created` and the registry entry are durable.
#[derive(Message)]
#[rtype(result = "Result<ProjectInfo, ActorError>")]
pub struct CreateProject {
    pub name: String,
    pub principal: Principal,
}

impl Handler<CreateProject> for ServiceActor {
    type Result = ResponseActFuture<Self, Result<ProjectInfo, ActorError>>;

    fn handle(&mut self, msg: CreateProject, _: &mut Context<Self>) -> Self::Result {
        if let Err(e) = validate_name(&msg.name) {
            return Box::pin(fut::ready(Err(e)));
        }
        let dir = self.root.join(&msg.name);
        if let Some((id, _)) = self.by_path(&dir) {
            return Box::pin(fut::ready(Err(ActorError::Conflict {
                reason: format!("a project named {:?} already exists", msg.name),
                existing_id: Some(id.to_string()),
            })));
        }
        let id = Uuid::new_v4();
        let config = self.config.clone();
        let work = {
            let dir = dir.clone();
            let name = msg.name.clone();
            blocking(move || {
                if let Err(e) = rho_plumbing::fs::create_dir(&dir) {
                    return Err(match e.kind() {
                        std::io::ErrorKind::AlreadyExists => ActorError::Conflict {
                            reason: format!("a folder named {name:?} already exists; register it with project.open"),
                            existing_id: journal_project_id(&dir).map(|i| i.to_string()),
                        },
                        _ => ActorError::internal(format!("creating {}: {e}", dir.display())),
                    });
                }
                create_project(&dir, id, &config).map_err(|e| open_refusal(&e))
            })
        };
        Box::pin(work.into_actor(self).then(move |res, act, _| {
            let started = res.map(|opened| ProjectActor::new(opened, act.config.clone()).start());
            if let Ok(addr) = &started {
                act.projects.insert(
                    id,
                    Entry {
                        dir: dir.clone(),
                        name: msg.name.clone(),
                        slot: Slot::Open(addr.clone()),
                    },
                );
            }
            let registry = act.registry.clone();
            async move { finish_create(started?, registry, id, msg.name, dir, msg.principal).await }
                .into_actor(act)
                .map(|res, act, _| {
                    if let Ok(info) = &res {
                        act.announce(info);
                    }
                    res
                })
        }))
    }
}

/// Register an existing folder (absolute, already resolved by the edge). A folder with a journal
/// keeps its id; one without becomes a new project named after the folder.
#[derive(Message)]
#[rtype(result = "Result<ProjectInfo, ActorError>")]
pub struct OpenFolder {
    pub dir: PathBuf,
    pub principal: Principal,
}

impl Handler<OpenFolder> for ServiceActor {
    type Result = ResponseActFuture<Self, Result<ProjectInfo, ActorError>>;

    fn handle(&mut self, msg: OpenFolder, ctx: &mut Context<Self>) -> Self::Result {
        let dir = match msg.dir.canonicalize() {
            Ok(d) if d.is_dir() => d,
            _ => {
                return Box::pin(fut::ready(Err(ActorError::NotFound {
                    what: format!("folder {}", msg.dir.display()),
                })))
            }
        };
        if dir.starts_with(self.root.join(".rho"))
            || dir.components().any(|c| c.as_os_str() == ".rho")
        {
            return Box::pin(fut::ready(Err(ActorError::invalid(
                "path",
                "a .rho folder is not a project",
            ))));
        }
        if let Some((id, entry)) = self.by_path(&dir) {
            let info = ProjectInfo {
                id,
                name: entry.name.clone(),
                dir: dir.clone(),
            };
            let opening = self.ensure_open(id, ctx);
            return Box::pin(async move { opening.await.map(|_| info) }.into_actor(self));
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if journal_dir(&dir).is_dir() {
            let config = self.config.clone();
            let d = dir.clone();
            let work = blocking(move || open_project(&d, &config).map_err(|e| open_refusal(&e)));
            return Box::pin(work.into_actor(self).then(move |res, act, _| {
                let registry = act.registry.clone();
                let outcome = res.and_then(|opened| {
                    let id = opened.journal.project_id();
                    if let Some(existing) = act.projects.get(&id) {
                        return Err(ActorError::Conflict {
                            reason: format!(
                                "project {id} is already registered at {}",
                                existing.dir.display()
                            ),
                            existing_id: Some(id.to_string()),
                        });
                    }
                    let name = if opened.state.project.exists() {
                        opened.state.project.name.clone()
                    } else {
                        name
                    };
                    let addr = ProjectActor::new(opened, act.config.clone()).start();
                    act.projects.insert(
                        id,
                        Entry {
                            dir: dir.clone(),
                            name: name.clone(),
                            slot: Slot::Open(addr),
                        },
                    );
                    Ok(ProjectRecord {
                        id,
                        name,
                        path: dir.clone(),
                    })
                });
                async move {
                    let rec = outcome?;
                    let info = ProjectInfo {
                        id: rec.id,
                        name: rec.name.clone(),
                        dir: rec.path.clone(),
                    };
                    blocking(move || {
                        registry
                            .put_project(&rec)
                            .map_err(|e| ActorError::internal(e.to_string()))
                    })
                    .await?;
                    Ok(info)
                }
                .into_actor(act)
                .map(|res, act, _| {
                    if let Ok(info) = &res {
                        act.announce(info);
                    }
                    res
                })
            }));
        }
        if let Err(e) = validate_name(&name) {
            return Box::pin(fut::ready(Err(e)));
        }
        let id = Uuid::new_v4();
        let config = self.config.clone();
        let d = dir.clone();
        let work = blocking(move || create_project(&d, id, &config).map_err(|e| open_refusal(&e)));
        Box::pin(work.into_actor(self).then(move |res, act, _| {
            let started = res.map(|opened| ProjectActor::new(opened, act.config.clone()).start());
            if let Ok(addr) = &started {
                act.projects.insert(
                    id,
                    Entry {
                        dir: dir.clone(),
                        name: name.clone(),
                        slot: Slot::Open(addr.clone()),
                    },
                );
            }
            let registry = act.registry.clone();
            async move { finish_create(started?, registry, id, name, dir, msg.principal).await }
                .into_actor(act)
                .map(|res, act, _| {
                    if let Ok(info) = &res {
                        act.announce(info);
                    }
                    res
                })
        }))
    }
}

/// Every registered project with its availability.
#[derive(Message)]
#[rtype(result = "Vec<ProjectListing>")]
pub struct ListProjects;

/// One row of [`ListProjects`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectListing {
    pub id: Uuid,
    pub name: String,
    pub dir: PathBuf,
    pub available: bool,
    pub reason: Option<String>,
}

impl ServiceActor {
    /// Every registered project with its availability.
    pub(crate) fn listing(&self) -> Vec<ProjectListing> {
        self.projects
            .iter()
            .map(|(id, e)| {
                let reason = match &e.slot {
                    Slot::Unavailable(r) => Some(r.clone()),
                    Slot::Known if !journal_dir(&e.dir).is_dir() => Some(format!(
                        "project folder or journal {} is missing",
                        e.dir.display()
                    )),
                    _ => None,
                };
                ProjectListing {
                    id: *id,
                    name: e.name.clone(),
                    dir: e.dir.clone(),
                    available: reason.is_none(),
                    reason,
                }
            })
            .collect()
    }
}

impl Handler<ListProjects> for ServiceActor {
    type Result = MessageResult<ListProjects>;

    fn handle(&mut self, _: ListProjects, _: &mut Context<Self>) -> Self::Result {
        MessageResult(self.listing())
    }
}

/// The project entity of a registered project (name, settings, sources).
#[derive(Message)]
#[rtype(result = "Result<(ProjectInfo, crate::project::ProjectEntity), ActorError>")]
pub struct DescribeProject {
    pub id: Uuid,
}

impl Handler<DescribeProject> for ServiceActor {
    type Result = ResponseFuture<Result<(ProjectInfo, crate::project::ProjectEntity), ActorError>>;

    fn handle(&mut self, msg: DescribeProject, ctx: &mut Context<Self>) -> Self::Result {
        let dir = self.projects.get(&msg.id).map(|e| e.dir.clone());
        let opening = self.ensure_open(msg.id, ctx);
        Box::pin(async move {
            let addr = opening.await?;
            let entity = addr
                .send(ProjectRead)
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            let info = ProjectInfo {
                id: msg.id,
                name: entity.name.clone(),
                dir: dir.unwrap_or_default(),
            };
            Ok((info, entity))
        })
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
