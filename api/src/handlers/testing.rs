//! The test-only owner's handlers (cargo feature `test-owner`): echo, revise the contract, and the oversized contract's operation.

use super::services::{spec, Services};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::testing::{revise, revision, EchoReply, EchoRequest, LargeReply, ReviseReply};
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    _services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    table.register(
        spec("testing.echo"),
        |_ctx: Ctx, req: EchoRequest| async move {
            Ok(EchoReply {
                revision: revision(),
                text: req.text,
            })
        },
    )?;
    table.register(
        spec("testing.revise"),
        |_ctx: Ctx, _req: EchoRequest| async move { Ok(ReviseReply { revision: revise() }) },
    )?;
    table.register(
        spec("testing.large"),
        |_ctx: Ctx, _req: EchoRequest| async move { Ok(LargeReply { large: true }) },
    )?;
    Ok(())
}
