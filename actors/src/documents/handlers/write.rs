//! `document.edit`, `document.undo` and `document.close`: one buffer command with its identity,
//! the edit bounded by the `documents.*` byte budgets.

use super::announce::Note;
use crate::child::{EntityActor, Execute, Query};
use crate::documents::changes;
use crate::documents::entity::{DocCommand, DocReply, DocumentEntity};
use crate::documents::text::Edit;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use uuid::Uuid;

/// `document.edit` and `document.undo` and `document.close`: one buffer command with its identity.
pub struct DocWrite {
    pub id: Uuid,
    pub op: DocWriteOp,
    pub ctx: CommandContext,
}

/// The buffer commands that go through [`DocWrite`].
pub enum DocWriteOp {
    Edit {
        expected_version: u64,
        edits: Vec<Edit>,
        /// The typing burst the edit continues (one undo step per burst, decision 0413).
        burst: Option<String>,
    },
    Undo {
        expected_version: u64,
    },
    Close,
}

impl Message for DocWrite {
    type Result = Result<DocReply, ActorError>;
}

impl Handler<DocWrite> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocReply, ActorError>>;

    fn handle(&mut self, msg: DocWrite, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let limits = self.config_limits().documents.clone();
        let bound = self.config_limits().max_event_bytes / 2;
        let (id, principal) = (msg.id, msg.ctx.principal.to_string());
        let mut reserved = 0;
        let (command, kind, base, edits) = match msg.op {
            DocWriteOp::Edit {
                expected_version,
                edits,
                burst,
            } => {
                reserved = edits.iter().map(|e| e.text.len() as u64).sum();
                let budget = limits
                    .max_total_bytes
                    .saturating_sub(self.owned.docs.others_bytes(id));
                self.owned.docs.reserve(reserved);
                let shown = changes::bounded(changes::sorted(&edits), bound);
                let command = DocCommand::Edit {
                    expected_version,
                    edits,
                    burst,
                    max_bytes: limits.max_buffer_bytes.min(budget),
                    max_undo_bytes: limits.max_undo_bytes,
                };
                (command, "edit", expected_version, shown)
            }
            DocWriteOp::Undo { expected_version } => {
                // The next undo's edits, read first: valid exactly when the undo then applies to
                // the version they were read at (versions are never reused).
                let read = Box::new(move |d: &DocumentEntity| {
                    (d.version == expected_version)
                        .then(|| changes::undo_preview(d))
                        .flatten()
                });
                let preview =
                    self.dispatch(child.clone(), Query::<DocumentEntity, _> { read }, false);
                let cctx = msg.ctx;
                return Box::pin(preview.then(move |shown, act, _| {
                    let note = Note {
                        kind: "undo",
                        base_version: expected_version,
                        change_id: change_id(&cctx),
                        edits: shown
                            .ok()
                            .flatten()
                            .and_then(|e| changes::bounded(e, bound)),
                    };
                    let command = DocCommand::Undo { expected_version };
                    act.write_doc(id, child, command, cctx, 0, note, principal)
                }));
            }
            DocWriteOp::Close => (DocCommand::Close, "close", 0, Some(Vec::new())),
        };
        let note = Note {
            kind,
            base_version: base,
            change_id: change_id(&msg.ctx),
            edits,
        };
        self.write_doc(id, child, command, msg.ctx, reserved, note, principal)
    }
}

fn change_id(ctx: &CommandContext) -> Option<String> {
    ctx.identity.as_ref().map(|(id, _)| id.clone())
}

impl ProjectActor {
    /// Executes one buffer command, then records the buffer's facts and announces the change.
    #[allow(clippy::too_many_arguments)]
    fn write_doc(
        &mut self,
        id: Uuid,
        child: Addr<EntityActor<DocumentEntity>>,
        command: DocCommand,
        ctx: CommandContext,
        reserved: u64,
        mut note: Note,
        author: String,
    ) -> ResponseActFuture<Self, Result<DocReply, ActorError>> {
        let closing = matches!(command, DocCommand::Close);
        Box::pin(
            self.dispatch(child, Execute::<DocumentEntity> { command, ctx }, true)
                .map(move |res, act, _| {
                    act.owned.docs.release(reserved);
                    let reply = res?;
                    let path = act.owned.docs.path_of(id).unwrap_or_default();
                    if closing {
                        note.base_version = reply.version;
                        act.owned.docs.set_closed(id, &path, &reply);
                    } else {
                        act.owned.docs.set_open(id, &path, &reply);
                    }
                    act.announce_doc(id, &reply, &author, note);
                    Ok(reply)
                }),
        )
    }
}
