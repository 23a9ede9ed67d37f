//! `document.save` in numbered steps: identity first, the disk read, the intent journaled, the
//! file replaced (temp, fsync, rename, directory fsync), then the outcome journaled (saved or
//! abandoned). A crash between intent and outcome is settled after restart by `reconcile.rs`.

use crate::child::{EntityActor, Execute, Query};
use crate::documents::entity::{DocCommand, DocReply, DocumentEntity};
use crate::documents::files;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::path::PathBuf;
use uuid::Uuid;

/// `document.save`: intent journaled, file replaced atomically, saved digest journaled.
pub struct SaveDocument {
    pub id: Uuid,
    pub expected_version: u64,
    pub base_digest: Option<String>,
    pub ctx: CommandContext,
}

impl Message for SaveDocument {
    type Result = Result<DocReply, ActorError>;
}

impl Handler<SaveDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocReply, ActorError>>;

    fn handle(&mut self, msg: SaveDocument, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let steps = save(ctx.address(), child, self.dir().to_path_buf(), msg);
        Box::pin(steps.into_actor(self))
    }
}

type Buffer = Addr<EntityActor<DocumentEntity>>;

/// The save protocol; each step awaits the one before.
async fn save(
    me: Addr<ProjectActor>,
    child: Buffer,
    dir: PathBuf,
    msg: SaveDocument,
) -> Result<DocReply, ActorError> {
    let id = msg.id;
    // 1. Identity first: a retried save returns its original reply (or `conflict`).
    let (path, text) = match buffer_or_original(&child, &msg.ctx).await? {
        Known::Original(reply) => return Ok(reply),
        Known::Buffer { path, text } => (path, text),
    };
    // 2. The disk as it is now (the entity compares it with the caller's base digest).
    let (_, file) = files::target(&dir, &path)?;
    let disk_now = blocking({
        let file = file.clone();
        move || files::disk_digest(&file)
    })
    .await?;
    // 3. Journal the intent (version and target digest) before the file is touched. The
    //    identity rides on the outcome, so a retry after a crash is not taken as done.
    let intent = SaveStep {
        id,
        child: child.clone(),
        command: DocCommand::SaveIntent {
            expected_version: msg.expected_version,
            base_digest: msg.base_digest,
            disk_now: disk_now.clone(),
        },
        ctx: without_identity(&msg.ctx),
        announce: false,
    };
    let intent = me.send(intent).await.map_err(internal)??;
    // 4. Replace the file: temp, fsync, rename, directory fsync.
    let written = blocking(move || files::replace(&file, &text, &disk_now)).await;
    // 5. Journal the outcome: saved (with the identity, announced once durable), or abandoned
    //    (the write's error is the answer, whatever journaling the abandonment gives).
    match written {
        Ok(digest) => {
            let saved = SaveStep {
                id,
                child,
                command: DocCommand::SaveDone {
                    version: intent.version,
                    disk_digest: digest,
                },
                ctx: msg.ctx,
                announce: true,
            };
            me.send(saved).await.map_err(internal)?
        }
        Err(e) => {
            let abandoned = SaveStep {
                id,
                child,
                command: DocCommand::SaveFailed {
                    reason: e.to_string(),
                },
                ctx: without_identity(&msg.ctx),
                announce: false,
            };
            let _ = me.send(abandoned).await;
            Err(e)
        }
    }
}

/// What step 1 found: the original reply of a retried save, or the buffer to write.
enum Known {
    Original(DocReply),
    Buffer { path: String, text: String },
}

/// Step 1: the identity check against the buffer's identity table, and its path and text.
async fn buffer_or_original(child: &Buffer, ctx: &CommandContext) -> Result<Known, ActorError> {
    let identity = ctx.identity.clone();
    let (retried, path, text) = child
        .send(Query::<DocumentEntity, _> {
            read: Box::new(move |d: &DocumentEntity| {
                let retried = identity
                    .as_ref()
                    .map(|(cid, dg)| crate::entity::Entity::identities(d).check(cid, dg));
                (retried, d.path.clone(), d.text.clone())
            }),
        })
        .await
        .map_err(internal)??
        .reply;
    if let Some(Some(original)) = retried.transpose()? {
        return Ok(Known::Original(original));
    }
    Ok(Known::Buffer { path, text })
}

/// Steps 3 and 5: one save command journaled on the buffer by the project actor (admission,
/// durability), announced as `document.changed` when `announce`.
struct SaveStep {
    id: Uuid,
    child: Buffer,
    command: DocCommand,
    ctx: CommandContext,
    announce: bool,
}

impl Message for SaveStep {
    type Result = Result<DocReply, ActorError>;
}

impl Handler<SaveStep> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocReply, ActorError>>;

    fn handle(&mut self, msg: SaveStep, _: &mut Context<Self>) -> Self::Result {
        let (id, announce) = (msg.id, msg.announce);
        let author = msg.ctx.principal.to_string();
        let change_id = msg.ctx.identity.as_ref().map(|(c, _)| c.clone());
        let command = Execute::<DocumentEntity> {
            command: msg.command,
            ctx: msg.ctx,
        };
        Box::pin(
            self.dispatch(msg.child, command, true)
                .map(move |res, act, _| {
                    let reply = res?;
                    if announce {
                        let note = super::announce::Note {
                            kind: "save",
                            base_version: reply.version,
                            change_id,
                            edits: Some(Vec::new()),
                        };
                        act.announce_doc(id, &reply, &author, note);
                    }
                    Ok(reply)
                }),
        )
    }
}

fn without_identity(ctx: &CommandContext) -> CommandContext {
    CommandContext {
        identity: None,
        ..ctx.clone()
    }
}

/// Blocking file work off the actor; a lost blocking task is an internal fault.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, ActorError> + Send + 'static,
) -> Result<T, ActorError> {
    tokio::task::spawn_blocking(f).await.map_err(internal)?
}

fn internal(e: impl std::fmt::Display) -> ActorError {
    ActorError::internal(e.to_string())
}
