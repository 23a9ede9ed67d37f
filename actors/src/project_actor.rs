//! The ProjectActor: holds the lease and the journal, serializes its project's writes, supervises children.
//!
//! Command path: edge -> ProjectActor (admission: health, queue bound) -> child actor (identity,
//! decision, journal submit, apply) -> wait for durability -> reply. A failed write makes the
//! actor rebuild every child from disk; a poisoned journal makes the project unavailable until
//! the service reopens it.

use crate::child::{Accepted, EntityActor, Execute, Query};
use crate::children::Children;
use crate::durable::durable;
use crate::entity::{CommandContext, Entity};
use crate::error::ActorError;
use crate::open::{OpenedProject, ProjectConfig};
use crate::project::{ProjectCommand, ProjectEntity, ProjectReply};
use crate::replay::replay;
use actix::prelude::*;
use rho_journal::{Journal, JournalError, WriterLease};
use std::path::PathBuf;
use std::sync::Arc;
use uuid::Uuid;

/// Whether the project can take work.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Health {
    Ready,
    /// A write failed; children are being rebuilt from the durable journal.
    Rebuilding,
    /// The journal is poisoned or closed; the service must reopen the project from disk.
    Failed(String),
}

/// One open project.
pub struct ProjectActor {
    id: Uuid,
    dir: PathBuf,
    journal: Arc<Journal>,
    _lease: WriterLease,
    config: ProjectConfig,
    children: Children,
    health: Health,
    queued: usize,
    durable_at_last_snapshot: u64,
    snapshot_running: bool,
    /// What owners keep beside their entities (from the owner table).
    pub(crate) owned: crate::owner_table::Owned,
}

impl ProjectActor {
    /// Wraps an opened project; call `start()` on the result.
    pub fn new(opened: OpenedProject, config: ProjectConfig) -> Self {
        let OpenedProject {
            dir,
            journal,
            lease,
            state,
            ..
        } = opened;
        let durable_at_last_snapshot = state.last_seq;
        let owned = crate::owner_table::Owned::from_state(&state);
        ProjectActor {
            id: journal.project_id(),
            dir,
            children: Children::start(state, &journal, &config.selection),
            journal,
            _lease: lease,
            config,
            health: Health::Ready,
            queued: 0,
            durable_at_last_snapshot,
            snapshot_running: false,
            owned,
        }
    }

    /// The project entity's actor.
    fn project(&mut self) -> Addr<EntityActor<ProjectEntity>> {
        let id = self.id;
        self.children.get_or_new::<ProjectEntity>(id)
    }

    /// The children, for owners' handlers.
    pub(crate) fn children(&mut self) -> &mut Children {
        &mut self.children
    }

    /// The project's id.
    pub(crate) fn project_id(&self) -> Uuid {
        self.id
    }

    /// How this project runs.
    pub(crate) fn config(&self) -> &ProjectConfig {
        &self.config
    }

    /// Every limit in force.
    pub(crate) fn config_limits(&self) -> &crate::limits::Limits {
        &self.config.limits
    }

    /// What this project shares with the other projects of its service.
    pub(crate) fn service_state(&self) -> &crate::service_state::ServiceState {
        &self.config.service
    }

    /// The project folder.
    pub(crate) fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The project's journal (owners' handlers wait on durability and read limits through it).
    pub(crate) fn journal(&self) -> &Arc<Journal> {
        &self.journal
    }

    /// Where changes are announced.
    pub(crate) fn events(&self) -> Option<&crate::events::EventBus> {
        self.config.events.as_ref()
    }

    /// The owner gate of new work (CONVENTIONS, Owner selection). A command path that looks its
    /// identity up itself calls this once the identity is new; [`Execute`] applies it to the rest.
    pub(crate) fn gate(&self, ctx: &CommandContext) -> Result<(), ActorError> {
        Ok(self.config.selection.admit(&ctx.needs)?)
    }

    /// Reads need a healthy project but never count against the write queue.
    pub(crate) fn admit_read(&self) -> Result<(), ActorError> {
        match &self.health {
            Health::Failed(reason) => Err(ActorError::unavailable(format!(
                "the project journal stopped: {reason}"
            ))),
            _ => Ok(()),
        }
    }

    /// Writes need a ready project and room in the write queue.
    pub(crate) fn admit(&self) -> Result<(), ActorError> {
        match &self.health {
            Health::Ready => {}
            Health::Rebuilding => {
                return Err(ActorError::unavailable(
                    "the project is rebuilding its state after a failed write; retry shortly",
                ))
            }
            Health::Failed(reason) => {
                return Err(ActorError::unavailable(format!(
                    "the project journal stopped: {reason}"
                )))
            }
        }
        if self.queued >= self.config.max_queue {
            return Err(ActorError::Limit {
                limit: "maxQueue".into(),
                value: self.config.max_queue as u64,
            });
        }
        Ok(())
    }

    /// Sends `msg` to a child, waits for durability of what it observed, and replies.
    pub(crate) fn dispatch<E: Entity, M, R>(
        &mut self,
        child: Addr<EntityActor<E>>,
        msg: M,
        counts: bool,
    ) -> ResponseActFuture<Self, Result<R, ActorError>>
    where
        M: Message<Result = Result<Accepted<R>, ActorError>> + Send + 'static,
        EntityActor<E>: Handler<M>,
        <EntityActor<E> as Actor>::Context: actix::dev::ToEnvelope<EntityActor<E>, M>,
        R: Send + 'static,
    {
        if let Err(e) = self.admit() {
            return Box::pin(fut::ready(Err(e)));
        }
        if counts {
            self.queued += 1;
        }
        let journal = self.journal.clone();
        let work = async move {
            let accepted = child
                .send(msg)
                .await
                .map_err(|e| Failure::Refused(ActorError::internal(format!("child mailbox: {e}"))))?
                .map_err(Failure::Refused)?;
            durable(&journal, accepted.wait_seq)
                .await
                .map_err(Failure::Journal)?;
            Ok(accepted.reply)
        };
        Box::pin(work.into_actor(self).map(move |res, act, ctx| {
            if counts {
                act.queued -= 1;
            }
            match res {
                Ok(reply) => {
                    act.maybe_snapshot(ctx);
                    Ok(reply)
                }
                Err(Failure::Refused(e)) => Err(e),
                Err(Failure::Journal(e)) => Err(act.journal_failed(e, ctx)),
            }
        }))
    }

    /// Reacts to a journal failure and says what the caller is told.
    pub(crate) fn journal_failed(
        &mut self,
        error: JournalError,
        ctx: &mut Context<Self>,
    ) -> ActorError {
        match &error {
            JournalError::WriteFailed { .. } | JournalError::NeedsRebuild => {
                if self.health == Health::Ready {
                    self.rebuild(ctx);
                }
            }
            _ => {
                if !matches!(self.health, Health::Failed(_)) {
                    tracing::error!(project = %self.id, %error, "project journal failed; the project is unavailable until reopened");
                    self.health = Health::Failed(error.to_string());
                }
            }
        }
        ActorError::unavailable(format!("the write was not made durable: {error}"))
    }

    /// Discards in-memory state and rebuilds every child from the durable journal.
    fn rebuild(&mut self, ctx: &mut Context<Self>) {
        self.health = Health::Rebuilding;
        tracing::warn!(project = %self.id, "a journal write failed; rebuilding state from disk");
        let journal = self.journal.clone();
        let work = async move {
            tokio::task::spawn_blocking(move || replay(&journal, true))
                .await
                .map_err(|e| e.to_string())?
                .map_err(|e| e.to_string())
        };
        ctx.spawn(work.into_actor(self).map(|res, act, _ctx| match res {
            Ok((state, _)) => {
                act.children = Children::start(state, &act.journal, &act.config.selection);
                match act.journal.resume() {
                    Ok(()) => act.health = Health::Ready,
                    Err(e) => act.health = Health::Failed(e.to_string()),
                }
            }
            Err(reason) => act.health = Health::Failed(reason),
        }));
    }

    /// Starts a background snapshot when enough has been journaled since the last one.
    fn maybe_snapshot(&mut self, ctx: &mut Context<Self>) {
        let since = self
            .journal
            .durable_seq()
            .saturating_sub(self.durable_at_last_snapshot);
        if self.snapshot_running || since < self.config.snapshot_every_events {
            return;
        }
        self.start_snapshot(ctx, None);
    }

    fn start_snapshot(
        &mut self,
        ctx: &mut Context<Self>,
        reply: Option<tokio::sync::oneshot::Sender<Result<u64, ActorError>>>,
    ) {
        self.snapshot_running = true;
        let journal = self.journal.clone();
        let work = async move {
            tokio::task::spawn_blocking(move || write_snapshot(&journal))
                .await
                .unwrap_or_else(|e| Err(ActorError::internal(e.to_string())))
        };
        ctx.spawn(work.into_actor(self).map(move |res, act, _| {
            act.snapshot_running = false;
            match &res {
                Ok(seq) => act.durable_at_last_snapshot = *seq,
                Err(e) => tracing::warn!(project = %act.id, error = %e, "snapshot failed; replay stays complete from older data"),
            }
            if let Some(tx) = reply {
                let _ = tx.send(res);
            }
        }));
    }
}

/// Folds the durable journal (from the newest snapshot) and writes a snapshot of it.
fn write_snapshot(journal: &Journal) -> Result<u64, ActorError> {
    let (state, _) = replay(journal, true).map_err(|e| ActorError::internal(e.to_string()))?;
    let bytes = state
        .encode()
        .map_err(|e| ActorError::internal(e.to_string()))?;
    journal.write_snapshot(state.last_seq, &bytes)?;
    Ok(state.last_seq)
}

enum Failure {
    Refused(ActorError),
    Journal(JournalError),
}

impl Actor for ProjectActor {
    type Context = Context<Self>;

    fn started(&mut self, ctx: &mut Context<Self>) {
        tracing::info!(project = %self.id, dir = %self.dir.display(), "project open");
        // Recovery, once after replay: every child's pure `reconcile`, then each owner's hook.
        self.children.reconcile(rho_plumbing::time::now_ms());
        for owner in crate::owner_table::OWNERS {
            if let Some(recover) = owner.recover {
                tracing::debug!(project = %self.id, owner = %owner.owner, "recover");
                recover(self, ctx);
            }
        }
    }
}

/// A write to the project entity.
#[derive(Message)]
#[rtype(result = "Result<ProjectReply, ActorError>")]
pub struct ProjectWrite {
    pub command: ProjectCommand,
    pub ctx: CommandContext,
}

impl Handler<ProjectWrite> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ProjectReply, ActorError>>;

    fn handle(&mut self, msg: ProjectWrite, _: &mut Context<Self>) -> Self::Result {
        let child = self.project();
        self.dispatch(
            child,
            Execute::<ProjectEntity> {
                command: msg.command,
                ctx: msg.ctx,
            },
            true,
        )
    }
}

/// A read of the project entity, answered once what it observed is durable.
#[derive(Message)]
#[rtype(result = "Result<ProjectEntity, ActorError>")]
pub struct ProjectRead;

impl Handler<ProjectRead> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ProjectEntity, ActorError>>;

    fn handle(&mut self, _: ProjectRead, _: &mut Context<Self>) -> Self::Result {
        let child = self.project();
        self.dispatch(
            child,
            Query::<ProjectEntity, ProjectEntity> {
                read: Box::new(|p| p.clone()),
            },
            false,
        )
    }
}

/// Facts about the project's journal and health.
#[derive(Debug, Clone)]
pub struct ProjectStatus {
    pub id: Uuid,
    pub dir: PathBuf,
    pub health: Health,
    pub last_seq: u64,
    pub durable_seq: u64,
    pub epoch: u64,
    pub queued: usize,
}

#[derive(Message)]
#[rtype(result = "ProjectStatus")]
pub struct Status;

impl Handler<Status> for ProjectActor {
    type Result = MessageResult<Status>;

    fn handle(&mut self, _: Status, _: &mut Context<Self>) -> Self::Result {
        MessageResult(ProjectStatus {
            id: self.id,
            dir: self.dir.clone(),
            health: self.health.clone(),
            last_seq: self.journal.last_assigned_seq(),
            durable_seq: self.journal.durable_seq(),
            epoch: self.journal.epoch(),
            queued: self.queued,
        })
    }
}

/// Write a snapshot now; answers the seq it covers.
#[derive(Message)]
#[rtype(result = "Result<u64, ActorError>")]
pub struct TakeSnapshot;

impl Handler<TakeSnapshot> for ProjectActor {
    type Result = ResponseFuture<Result<u64, ActorError>>;

    fn handle(&mut self, _: TakeSnapshot, ctx: &mut Context<Self>) -> Self::Result {
        if self.snapshot_running {
            return Box::pin(async {
                Err(ActorError::unavailable(
                    "a snapshot is already being written",
                ))
            });
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        self.start_snapshot(ctx, Some(tx));
        Box::pin(async move {
            rx.await
                .unwrap_or_else(|_| Err(ActorError::internal("snapshot dropped")))
        })
    }
}

/// Close the project in order: stop taking work, drain, write the clean-shutdown marker, release the lease.
#[derive(Message)]
#[rtype(result = "Result<(), ActorError>")]
pub struct Close;

impl Handler<Close> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(), ActorError>>;

    fn handle(&mut self, _: Close, _: &mut Context<Self>) -> Self::Result {
        self.health = Health::Failed("the project is closing".into());
        let journal = self.journal.clone();
        let work = async move {
            tokio::task::spawn_blocking(move || journal.close())
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
                .map_err(ActorError::from)
        };
        Box::pin(work.into_actor(self).map(|res, _act, ctx| {
            ctx.stop();
            res
        }))
    }
}

/// One page of a project folder's listing (`project.entries`).
#[derive(Message)]
#[rtype(result = "Result<crate::entries::Page, ActorError>")]
pub struct ListEntries {
    pub path: String,
    pub cursor: Option<String>,
}

impl Handler<ListEntries> for ProjectActor {
    type Result = ResponseFuture<Result<crate::entries::Page, ActorError>>;

    fn handle(&mut self, msg: ListEntries, _: &mut Context<Self>) -> Self::Result {
        let dir = self.dir.clone();
        if let Err(e) = self.admit_read() {
            return Box::pin(async move { Err(e) });
        }
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                crate::entries::list(&dir, &msg.path, msg.cursor.as_deref())
            })
            .await
            .map_err(|e| ActorError::internal(e.to_string()))?
        })
    }
}
