//! `document.edit`, `document.undo` and `document.close`: one buffer command with its identity,
//! the edit bounded by the `documents.*` byte budgets.

use crate::child::Execute;
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
        let id = msg.id;
        let mut reserved = 0;
        let command = match msg.op {
            DocWriteOp::Edit {
                expected_version,
                edits,
            } => {
                reserved = edits.iter().map(|e| e.text.len() as u64).sum();
                let budget = limits
                    .max_total_bytes
                    .saturating_sub(self.owned.docs.others_bytes(id));
                self.owned.docs.reserve(reserved);
                DocCommand::Edit {
                    expected_version,
                    edits,
                    max_bytes: limits.max_buffer_bytes.min(budget),
                    max_undo_bytes: limits.max_undo_bytes,
                }
            }
            DocWriteOp::Undo { expected_version } => DocCommand::Undo { expected_version },
            DocWriteOp::Close => DocCommand::Close,
        };
        let closing = matches!(command, DocCommand::Close);
        let author = msg.ctx.principal.to_string();
        Box::pin(
            self.dispatch(
                child,
                Execute::<DocumentEntity> {
                    command,
                    ctx: msg.ctx,
                },
                true,
            )
            .map(move |res, act, _| {
                act.owned.docs.release(reserved);
                let reply = res?;
                if closing {
                    let path = act.owned.docs.path_of(id).unwrap_or_default();
                    act.owned.docs.set_closed(id, &path, &reply);
                } else {
                    let path = act.owned.docs.path_of(id).unwrap_or_default();
                    act.owned.docs.set_open(id, &path, &reply);
                }
                act.announce_doc(id, &reply, &author);
                Ok(reply)
            }),
        )
    }
}
