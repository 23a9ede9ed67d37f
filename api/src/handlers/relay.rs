//! `agent.relay.record` and `project.work.read`: check and lift the relay's batch, send one
//! message, render the external sessions.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::relay::contract::{
    FactWire, RecordReply, RecordRequest, WorkReadRequest, WorkReply, MAX_FACTS,
};
use rho_actors::agent::relay::handlers::{ReadRelays, RecordRelay};
use rho_actors::agent::relay::view;
use rho_actors::entity::CommandContext;
use std::sync::Arc;

/// A relay id, an ACP session id or a step id: 1 to 128 printable ASCII characters.
fn check_id(field: &str, text: &str) -> Result<(), ApiError> {
    if text.is_empty() || text.len() > 128 || !text.bytes().all(|b| b.is_ascii_graphic()) {
        return Err(ApiError::invalid(
            Some(field),
            "1 to 128 printable ASCII characters",
        ));
    }
    Ok(())
}

fn check(req: &RecordRequest) -> Result<(), ApiError> {
    check_id("relayId", &req.relay_id)?;
    if !matches!(req.agent.as_str(), "claude" | "codex") {
        return Err(ApiError::invalid(Some("agent"), "claude or codex"));
    }
    if req.facts.len() > MAX_FACTS {
        return Err(ApiError::limit(
            "agent.relay.record facts",
            MAX_FACTS as u64,
        ));
    }
    for f in &req.facts {
        match f {
            FactWire::Session {
                session_id, how, ..
            } => {
                check_id("facts.sessionId", session_id)?;
                if !matches!(how.as_str(), "new" | "load") {
                    return Err(ApiError::invalid(Some("facts.how"), "new or load"));
                }
            }
            FactWire::Prompt { session_id, .. } | FactWire::Ended { session_id, .. } => {
                check_id("facts.sessionId", session_id)?;
            }
            FactWire::Step {
                session_id, step, ..
            } => {
                check_id("facts.sessionId", session_id)?;
                check_id("facts.step.stepId", &step.step_id)?;
                let bounded = step.title.len() <= 512
                    && step.input.as_ref().is_none_or(|i| i.len() <= 512)
                    && step.purpose.as_ref().is_none_or(|p| p.len() <= 200)
                    && step.last_lines.len() <= 2048;
                if !bounded {
                    return Err(ApiError::invalid(
                        Some("facts.step"),
                        "a step keeps a title and input of at most 512 bytes, a purpose of at most 200 and at most 2 KiB of output",
                    ));
                }
            }
            FactWire::Closed { .. } => {}
        }
    }
    Ok(())
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("agent.relay.record"),
        move |ctx: Ctx, req: RecordRequest| {
            let s = s.clone();
            async move {
                check(&req)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let msg = RecordRelay {
                    header: req.header(),
                    facts: req.facts.into_iter().map(FactWire::into_fact).collect(),
                    ctx: CommandContext::now(ctx.principal.clone()),
                };
                let recorded = p.send(msg).await.map_err(mailbox)??;
                Ok::<RecordReply, ApiError>(RecordReply { recorded })
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("project.work.read"),
        move |ctx: Ctx, req: WorkReadRequest| {
            let s = s.clone();
            async move {
                let p = project(&s, &ctx, &req.project_id).await?;
                let records = p.send(ReadRelays).await.map_err(mailbox)??;
                Ok::<WorkReply, ApiError>(view::work_reply(records, view::connected))
            }
        },
    )?;
    Ok(())
}
