//! `conversation.mcp` (`/mcp`: the MCP servers as the conversation's session of Rho's own agent
//! runs them, the configured entries when none runs, `not_loaded` for Claude Code and Codex) and
//! `conversation.doctor` (`/doctor`: the provider asked now, the model, MCP health, R and Python),
//! and a server's open questions in Rho's own agent: `conversation.question` (a form's fields or
//! a sampling request's details) and `conversation.answer` (the person's answer).

use super::conversation_more::parse_id;
use super::conversation_setup::setup;
use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::conversation::contract::PermissionReply;
use rho_actors::agent::conversation::render;
use rho_actors::agent::conversation::surfaces::{
    AnswerQuestion, ConversationQuestion, ConversationServers,
};
use rho_actors::agent::conversation::surfaces_contract::{
    server, AnswerRequest, DoctorReply, DoctorRow, McpReply, QuestionReply, QuestionRequest,
    SurfaceRequest,
};
use rho_actors::agent::conversation::Backend;
use rho_mcp::report::{configured_reports, not_loaded_reports, ServerReport, Status};
use serde_json::json;
use std::sync::Arc;

/// The conversation's servers: live, configured, or not loaded (and whether live).
async fn reports(
    s: &Services,
    ctx: &Ctx,
    req: &SurfaceRequest,
) -> Result<(bool, Vec<ServerReport>), ApiError> {
    let c = setup(s)?;
    let id = parse_id("conversationId", &req.conversation_id)?;
    let p = project(s, ctx, &req.project_id).await?;
    let (backend, live) = p
        .send(ConversationServers {
            conversation_id: id,
        })
        .await
        .map_err(mailbox)??;
    if let Some(live) = live {
        return Ok((true, live));
    }
    let config = c
        .native
        .mcp()
        .map_err(|why| ApiError::new(Code::Unavailable, why, json!({"missing": ["config"]})))?;
    Ok(match backend {
        Backend::Rho => (false, configured_reports(&config)),
        _ => (false, not_loaded_reports(&config)),
    })
}

async fn doctor(s: &Services, ctx: &Ctx, req: SurfaceRequest) -> Result<DoctorReply, ApiError> {
    let c = setup(s)?;
    let mut rows = Vec::new();
    match c.native.model() {
        Ok(client) => {
            let cfg = client.config();
            let checked = client.check().await;
            rows.push(DoctorRow {
                check: "provider".into(),
                ok: checked.is_ok(),
                detail: match checked {
                    Ok(()) => format!(
                        "{} ({}) at {} answers; model {}",
                        cfg.provider,
                        cfg.api.as_str(),
                        cfg.base_url,
                        cfg.model
                    ),
                    Err(e) => format!("{} at {}: {e}", cfg.provider, cfg.base_url),
                },
            });
        }
        Err(why) => rows.push(DoctorRow {
            check: "provider".into(),
            ok: false,
            detail: why,
        }),
    }
    let mcp = match reports(s, ctx, &req).await {
        Ok((live, all)) => {
            let failed: Vec<String> = all
                .iter()
                .filter(|r| matches!(r.status, Status::Failed | Status::Malformed))
                .map(|r| format!("{}: {}", r.id, r.error.clone().unwrap_or_default()))
                .collect();
            let connected = all.iter().filter(|r| r.status == Status::Connected).count();
            DoctorRow {
                check: "mcp".into(),
                ok: failed.is_empty(),
                detail: format!(
                    "{} configured, {}{}",
                    all.len(),
                    if live {
                        format!("{connected} connected")
                    } else {
                        "none started in this conversation".to_string()
                    },
                    if failed.is_empty() {
                        String::new()
                    } else {
                        format!("; failed: {}", failed.join("; "))
                    }
                ),
            }
        }
        Err(e) if e.code == Code::NotFound || e.code == Code::Invalid => return Err(e),
        Err(e) => DoctorRow {
            check: "mcp".into(),
            ok: false,
            detail: e.message.clone(),
        },
    };
    rows.push(mcp);
    for (check, found, what) in [
        ("r", &c.native.rscript, "Rscript"),
        ("python", &c.native.python, "Python"),
    ] {
        rows.push(DoctorRow {
            check: check.into(),
            ok: found.is_some(),
            detail: match found {
                Some(p) => format!("{what} at {}", p.display()),
                None => format!("{what} not found"),
            },
        });
    }
    Ok(DoctorReply { rows })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("conversation.mcp"),
        move |ctx: Ctx, req: SurfaceRequest| {
            let s = s.clone();
            async move {
                let (live, all) = reports(&s, &ctx, &req).await?;
                Ok::<McpReply, ApiError>(McpReply {
                    live,
                    servers: all.iter().map(server).collect(),
                })
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.doctor"),
        move |ctx: Ctx, req: SurfaceRequest| {
            let s = s.clone();
            async move { doctor(&s, &ctx, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.question"),
        move |ctx: Ctx, req: QuestionRequest| {
            let s = s.clone();
            async move {
                let id = parse_id("conversationId", &req.conversation_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let question = p
                    .send(ConversationQuestion {
                        conversation_id: id,
                        request_id: req.request_id,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok::<QuestionReply, ApiError>(QuestionReply { question })
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.answer"),
        move |ctx: Ctx, req: AnswerRequest| {
            let s = s.clone();
            async move { answer(&s, &ctx, req).await }
        },
    )?;
    Ok(())
}

async fn answer(s: &Services, ctx: &Ctx, req: AnswerRequest) -> Result<PermissionReply, ApiError> {
    let id = parse_id("conversationId", &req.conversation_id)?;
    if !matches!(req.action.as_str(), "accept" | "decline" | "cancel") {
        return Err(ApiError::new(
            Code::Invalid,
            format!("action: {:?} is not accept, decline or cancel", req.action),
            json!({"field": "action"}),
        ));
    }
    let p = project(s, ctx, &req.project_id).await?;
    let state = p
        .send(AnswerQuestion {
            conversation_id: id,
            request_id: req.request_id.clone(),
            action: req.action,
            content: req.content.unwrap_or(serde_json::Value::Null),
            by: ctx.principal.to_string(),
        })
        .await
        .map_err(mailbox)??;
    let permission = state
        .messages
        .iter()
        .map(render::message)
        .flat_map(|m| m.permissions)
        .find(|p| p.request_id == req.request_id)
        .ok_or_else(|| ApiError::not_found("question"))?;
    Ok(PermissionReply { permission })
}
