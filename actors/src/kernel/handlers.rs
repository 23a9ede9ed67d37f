//! The kernel owner's port: the edge reaches the project's kernel entity directly, so kernel.* never waits in the project's request queue.
//!
//! `KernelPort` is the one message to the project actor: it is admitted like a read (it never
//! counts against `maxQueue`) and answers a [`KernelHandle`]. The handle sends commands to the
//! kernel entity's own actor and waits for their durability through the project's journal
//! writer; a caller waiting for a cell waits on its own, holding no slot of the project.

use super::decide::{KernelCommand, KernelReply};
use super::entity::KernelEntity;
use crate::child::{EntityActor, Execute, Query};
use crate::durable::written;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::events::EventBus;
use crate::limits::KernelLimits;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_journal::Journal;
use std::path::PathBuf;
use std::sync::Arc;

/// Asks a project for its kernel handle.
#[derive(Message)]
#[rtype(result = "Result<KernelHandle, ActorError>")]
pub struct KernelPort;

/// A project's kernel entity, reachable without the project's request queue.
#[derive(Clone)]
pub struct KernelHandle {
    project: Addr<ProjectActor>,
    child: Addr<EntityActor<KernelEntity>>,
    journal: Arc<Journal>,
    events: Option<EventBus>,
    project_id: uuid::Uuid,
    dir: PathBuf,
    limits: KernelLimits,
    selection: Arc<crate::owners::Selection>,
    pub(crate) live: super::live::LiveSessions,
    pub(crate) runtime: Arc<super::live::KernelRuntime>,
}

impl Handler<KernelPort> for ProjectActor {
    type Result = Result<KernelHandle, ActorError>;

    fn handle(&mut self, _: KernelPort, ctx: &mut Context<Self>) -> Self::Result {
        self.admit_read()?;
        let id = self.project_id();
        Ok(KernelHandle {
            project: ctx.address(),
            child: self.children().get_or_new::<KernelEntity>(id),
            journal: self.journal().clone(),
            events: self.events().cloned(),
            project_id: id,
            dir: self.dir().to_path_buf(),
            limits: self.config_limits().kernel.clone(),
            selection: self.config().selection.clone(),
            live: self.owned.kernel.clone(),
            runtime: self.config().kernel.clone(),
        })
    }
}

impl KernelHandle {
    /// The `kernel` limits in force.
    pub fn limits(&self) -> &KernelLimits {
        &self.limits
    }

    /// The owner gate of new work (after the identity lookup).
    pub fn gate(&self, ctx: &CommandContext) -> Result<(), ActorError> {
        Ok(self.selection.admit(&ctx.needs)?)
    }

    /// Journals what sessions report, as Rho's own records.
    pub(crate) fn recorder(&self) -> super::bridge::Recorder {
        super::bridge::Recorder {
            child: self.child.clone(),
            events: self.events.clone(),
            project_id: self.project_id,
            plots: super::store::plots_dir(&self.dir),
            sessions: super::store::sessions_dir(&self.dir),
            max_ended_sessions: self.limits.max_ended_sessions,
        }
    }

    /// The project folder.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// Runs `command` on the kernel entity; answers once its records are durable, and announces
    /// `kernel.changed` when it journaled any.
    pub async fn command(
        &self,
        command: KernelCommand,
        ctx: CommandContext,
    ) -> Result<KernelReply, ActorError> {
        let before = self.journal.last_assigned_seq();
        let accepted = self
            .child
            .send(Execute::<KernelEntity> { command, ctx })
            .await
            .map_err(|e| ActorError::internal(format!("kernel mailbox: {e}")))??;
        written(&self.project, &self.journal, accepted.wait_seq).await?;
        if accepted.wait_seq > before {
            self.announce(&accepted.reply);
        }
        Ok(accepted.reply)
    }

    /// Reads the kernel entity; answers once what it observed is durable.
    pub async fn read<R: Send + 'static>(
        &self,
        read: impl FnOnce(&KernelEntity) -> R + Send + 'static,
    ) -> Result<R, ActorError> {
        let accepted = self
            .child
            .send(Query::<KernelEntity, R> {
                read: Box::new(read),
            })
            .await
            .map_err(|e| ActorError::internal(format!("kernel mailbox: {e}")))??;
        written(&self.project, &self.journal, accepted.wait_seq).await?;
        Ok(accepted.reply)
    }

    /// Reads the kernel entity as it stands, durable or not: only to decide whether to keep
    /// waiting; what a caller is told comes from [`KernelHandle::read`].
    pub(crate) async fn peek<R: Send + 'static>(
        &self,
        read: impl FnOnce(&KernelEntity) -> R + Send + 'static,
    ) -> Result<R, ActorError> {
        Ok(self
            .child
            .send(Query::<KernelEntity, R> {
                read: Box::new(read),
            })
            .await
            .map_err(|e| ActorError::internal(format!("kernel mailbox: {e}")))??
            .reply)
    }

    /// Reads the kernel entity as it stands, with the journal's seq it must wait for before
    /// anyone is told what it read ([`KernelHandle::durable`]).
    pub(crate) async fn look<R: Send + 'static>(
        &self,
        read: impl FnOnce(&KernelEntity) -> R + Send + 'static,
    ) -> Result<(R, u64), ActorError> {
        let accepted = self
            .child
            .send(Query::<KernelEntity, R> {
                read: Box::new(read),
            })
            .await
            .map_err(|e| ActorError::internal(format!("kernel mailbox: {e}")))??;
        Ok((accepted.reply, accepted.wait_seq))
    }

    /// Resolves once the journal is durable up to `seq`.
    pub(crate) async fn durable(&self, seq: u64) -> Result<(), ActorError> {
        written(&self.project, &self.journal, seq).await
    }

    /// `kernel.changed {cellId, state}` so a browser re-reads the cell.
    fn announce(&self, reply: &KernelReply) {
        let (Some(bus), KernelReply::Cell(cell) | KernelReply::Signal(cell)) =
            (&self.events, reply)
        else {
            return;
        };
        bus.publish(
            "kernel.changed",
            Some(self.project_id),
            serde_json::json!({ "cellId": cell.cell_id, "state": cell.state }),
        );
    }
}
