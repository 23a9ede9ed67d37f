//! `console.run/stop/list/output`: parse and lift the request, send one message, render the record.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use base64::Engine;
use rho_actors::console::contract::{
    ChunkView, CommandView, ListReply, ListRequest, OutputPage, OutputRequest, RunRequest,
    StopRequest,
};
use rho_actors::console::handlers::output::ReadConsoleOutput;
use rho_actors::console::handlers::run::RunConsole;
use rho_actors::console::handlers::state::ReadCommands;
use rho_actors::console::handlers::stop::StopConsole;
use rho_actors::console::output::Piece;
use rho_actors::console::render;
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use std::sync::Arc;

fn lift(req: &RunRequest, ctx: &Ctx) -> Result<RunConsole, ApiError> {
    if req.change_id.is_empty() {
        return Err(ApiError::invalid(
            Some("changeId"),
            "a changeId is required",
        ));
    }
    if req.command.trim().is_empty() {
        return Err(ApiError::invalid(Some("command"), "the command is empty"));
    }
    Ok(RunConsole {
        change_id: req.change_id.clone(),
        text: req.command.clone(),
        cwd: req.cwd.clone(),
        ctx: CommandContext {
            principal: ctx.principal.clone(),
            time_ms: rho_plumbing::time::now_ms(),
            identity: Some((req.change_id.clone(), input_digest(req, "changeId"))),
            needs: ctx.needs.clone(),
        },
    })
}

fn pieces(p: Vec<Piece>) -> Vec<ChunkView> {
    let b64 = base64::engine::general_purpose::STANDARD;
    p.into_iter()
        .map(|piece| match piece {
            Piece::Bytes { stderr, bytes } => ChunkView {
                stream: if stderr { "stderr" } else { "stdout" }.into(),
                bytes: Some(b64.encode(bytes)),
                omitted_bytes: None,
            },
            Piece::Cut { omitted } => ChunkView {
                stream: "cut".into(),
                bytes: None,
                omitted_bytes: Some(omitted),
            },
        })
        .collect()
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("console.run"), move |ctx: Ctx, req: RunRequest| {
        let s = s.clone();
        async move {
            let msg = lift(&req, &ctx)?;
            let p = project(&s, &ctx, &req.project_id).await?;
            let c = p.send(msg).await.map_err(mailbox)??;
            Ok::<CommandView, ApiError>(render::view(&c))
        }
    })?;

    let s = services.clone();
    table.register(spec("console.stop"), move |ctx: Ctx, req: StopRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let c = p
                .send(StopConsole {
                    command_id: req.command_id.clone(),
                    by: ctx.principal.to_string(),
                })
                .await
                .map_err(mailbox)??;
            Ok::<CommandView, ApiError>(render::view(&c))
        }
    })?;

    let s = services.clone();
    table.register(spec("console.list"), move |ctx: Ctx, req: ListRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let all = p
                .send(ReadCommands { command_id: None })
                .await
                .map_err(mailbox)??;
            Ok::<ListReply, ApiError>(ListReply {
                commands: all.iter().map(render::view).collect(),
            })
        }
    })?;

    let s = services.clone();
    table.register(
        spec("console.output"),
        move |ctx: Ctx, req: OutputRequest| {
            let s = s.clone();
            async move {
                let page_max = s.limits.console.max_read_bytes;
                let max = req.max_bytes.unwrap_or(page_max);
                if max > page_max {
                    return Err(ApiError::limit("console.maxReadBytes", page_max));
                }
                if max == 0 {
                    return Err(ApiError::invalid(
                        Some("maxBytes"),
                        "maxBytes is at least 1",
                    ));
                }
                let offset = req.offset.unwrap_or(0);
                let p = project(&s, &ctx, &req.project_id).await?;
                let (c, page) = p
                    .send(ReadConsoleOutput {
                        command_id: req.command_id.clone(),
                        offset,
                        max,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(OutputPage {
                    command_id: c.command_id.clone(),
                    offset,
                    next_offset: page.next_offset,
                    size: page.size,
                    complete: !c.state.is_live() && page.next_offset >= page.size,
                    chunks: pieces(page.pieces),
                })
            }
        },
    )?;
    Ok(())
}
