//! The project actor's `artifact.check` and `action.export` messages (the file work is in `check` and `export`).

use super::state::one_run;
use crate::child::{Execute, Query};
use crate::documents::handlers::{BufferText, ListDocuments};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::identity::InputDigest;
use crate::project_actor::ProjectActor;
use crate::runs::contract::{CheckReply, ExportReply};
use crate::runs::entity::{RunCommand, RunEvent, RunsEntity};
use crate::runs::model::{Execution, ScriptRef};
use actix::prelude::*;

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(e.to_string())
}

/// `artifact.check`.
#[derive(Message)]
#[rtype(result = "Result<CheckReply, ActorError>")]
pub struct CheckArtifacts {
    pub operation_id: String,
}

impl Handler<CheckArtifacts> for ProjectActor {
    type Result = ResponseFuture<Result<CheckReply, ActorError>>;

    fn handle(&mut self, msg: CheckArtifacts, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let max = self.config_limits().resources.max_file_bytes;
        Box::pin(async move {
            let run = one_run(&me, &msg.operation_id).await?;
            tokio::task::spawn_blocking(move || crate::runs::check::check(&dir, &run, max))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
        })
    }
}

/// What to do with unsaved editor changes of the run's script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnsavedChoice {
    Include,
    Leave,
}

/// `action.export`.
#[derive(Message)]
#[rtype(result = "Result<ExportReply, ActorError>")]
pub struct ExportRun {
    pub operation_id: String,
    pub export_id: String,
    pub digest: InputDigest,
    /// Project-relative, normalized by the edge.
    pub folder: String,
    pub unsaved: Option<UnsavedChoice>,
    pub ctx: CommandContext,
}

impl Handler<ExportRun> for ProjectActor {
    type Result = ResponseFuture<Result<ExportReply, ActorError>>;

    fn handle(&mut self, msg: ExportRun, ctx: &mut Context<Self>) -> Self::Result {
        let admitted = self.admit();
        let me = ctx.address();
        let dir = self.dir().to_path_buf();
        let max = self.config_limits().resources.max_file_bytes;
        let pid = self.project_id();
        let child = self.children().get_or_new::<RunsEntity>(pid);
        let journal = self.journal().clone();
        let gate = self.gate(&msg.ctx);
        Box::pin(async move {
            admitted?;
            // Identity first, then the owner gate.
            let (id, digest) = (msg.export_id.clone(), msg.digest);
            let known = child
                .send(Query::<RunsEntity, Option<(InputDigest, String)>> {
                    read: Box::new(move |e: &RunsEntity| e.exports.get(&id).cloned()),
                })
                .await
                .map_err(mailbox)??;
            crate::durable::durable(&journal, known.wait_seq).await?;
            if let Some((d, reply)) = known.reply {
                if d != digest {
                    return Err(ActorError::conflict(format!(
                        "exportId {:?} was already used with a different input",
                        msg.export_id
                    )));
                }
                return serde_json::from_str(&reply)
                    .map_err(|e| ActorError::internal(e.to_string()));
            }
            gate?;
            let run = one_run(&me, &msg.operation_id).await?;
            if run.execution == Execution::Running || run.execution == Execution::Pending {
                return Err(ActorError::conflict(format!(
                    "the run {} has not ended; export it when it has",
                    run.operation_id
                )));
            }
            let script_path = match &run.plan.script {
                ScriptRef::Disk { path } | ScriptRef::Buffer { path, .. } => path.clone(),
            };
            let docs = me.send(ListDocuments).await.map_err(mailbox)??;
            let dirty = docs
                .iter()
                .find(|d| d.path == script_path && d.open && d.dirty);
            let unsaved = match (dirty, msg.unsaved) {
                (None, _) | (Some(_), Some(UnsavedChoice::Leave)) => None,
                (Some(_), None) => {
                    return Err(ActorError::invalid(
                        "unsaved",
                        format!("the script {script_path} has unsaved changes: say unsaved \"include\" or \"leave\""),
                    ))
                }
                (Some(d), Some(UnsavedChoice::Include)) => {
                    let (_, text) = me
                        .send(BufferText {
                            id: d.id,
                            version: d.version,
                        })
                        .await
                        .map_err(mailbox)??;
                    Some(crate::runs::export::Unsaved { text })
                }
            };
            let (folder, export_id) = (msg.folder.clone(), msg.export_id.clone());
            let reply = tokio::task::spawn_blocking(move || {
                crate::runs::export::export(&dir, &run, &export_id, &folder, unsaved, max)
            })
            .await
            .map_err(|e| ActorError::internal(e.to_string()))??;
            // Journaled as the reply's JSON text (the same bytes the sorted map gave before).
            let text =
                serde_json::to_string(&reply).map_err(|e| ActorError::internal(e.to_string()))?;
            let event = RunEvent::Exported {
                operation_id: msg.operation_id.clone(),
                export_id: msg.export_id.clone(),
                digest: msg.digest,
                reply: text,
            };
            let accepted = child
                .send(Execute::<RunsEntity> {
                    command: RunCommand::Export { event },
                    ctx: msg.ctx,
                })
                .await
                .map_err(mailbox)??;
            crate::durable::written(&me, &journal, accepted.wait_seq).await?;
            Ok(reply)
        })
    }
}
