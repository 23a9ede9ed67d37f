//! The composer's palettes for a conversation of Rho's own agent, read on its live session's MCP
//! runtime: `conversation.prompts` (slash commands), `conversation.resources` (the `@`
//! palette), `conversation.complete` (a server's suggestions for what is being typed),
//! `conversation.image` (a call card's stored image), and the
//! check a send makes of a `/mcp:` line first (a missing required argument is named and nothing
//! is journaled).

use super::conversation_more::parse_id;
use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use actix::Addr;
use rho_actors::agent::conversation::native_input::{check_prompt, RESOURCE_TOKEN};
use rho_actors::agent::conversation::surfaces::{
    ConversationImage, ConversationRuntime, RuntimeAnswer,
};
use rho_actors::agent::conversation::surfaces_contract::{
    CompleteReply, CompleteRequest, ImageReply, ImageRequest, PaletteRequest, PromptArgView,
    PromptView, PromptsReply, ResourceView, ResourcesReply,
};
use rho_actors::project_actor::ProjectActor;
use rho_mcp::runtime::McpRuntime;
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use uuid::Uuid;

/// Rows the `@` palette answers at most.
const RESOURCE_ROWS: usize = 50;
/// How long a suggestion may take before the palette is left empty.
const COMPLETE_WAIT: Duration = Duration::from_secs(5);

/// The conversation's live MCP runtime; a conversation of Rho's own agent without a driver
/// (Rho restarted) gets one, which opens its session without a message.
async fn runtime(
    s: &Services,
    p: &Addr<ProjectActor>,
    project_id: &str,
    conversation: Uuid,
) -> Result<Option<Arc<McpRuntime>>, ApiError> {
    let ask = |setup| {
        p.send(ConversationRuntime {
            conversation_id: conversation,
            setup,
        })
    };
    if let RuntimeAnswer::Live(rt) = ask(None).await.map_err(mailbox)?? {
        return Ok(rt);
    }
    let Some(setup) =
        super::conversation_setup::palette_setup(s, p, project_id, conversation).await?
    else {
        return Ok(None);
    };
    match ask(Some(setup)).await.map_err(mailbox)?? {
        RuntimeAnswer::Live(rt) => Ok(rt),
        RuntimeAnswer::NoDriver => Ok(None),
    }
}

async fn live(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    conversation_id: &str,
) -> Result<Option<Arc<McpRuntime>>, ApiError> {
    let id = parse_id("conversationId", conversation_id)?;
    let p = project(s, ctx, project_id).await?;
    runtime(s, &p, project_id, id).await
}

/// A send's `/mcp:` line checked against the live session's prompts (opened for the check
/// when none runs): `invalid` naming what is wrong. Without a session the turn itself fetches
/// (and names a missing argument).
pub(super) async fn check_send(
    s: &Services,
    p: &Addr<ProjectActor>,
    project_id: &str,
    conversation: Uuid,
    text: &str,
) -> Result<(), ApiError> {
    if !text.starts_with("/mcp:") {
        return Ok(());
    }
    match runtime(s, p, project_id, conversation).await? {
        Some(rt) => check_prompt(&rt, text)
            .map_err(|why| ApiError::new(Code::Invalid, why, json!({"field": "text"}))),
        None => Ok(()),
    }
}

fn prompts(rt: Option<&McpRuntime>) -> PromptsReply {
    PromptsReply {
        live: rt.is_some(),
        prompts: rt
            .map(|r| r.prompt_commands())
            .unwrap_or_default()
            .into_iter()
            .map(|c| PromptView {
                command: c.command,
                server: c.server,
                prompt: c.prompt,
                description: c.description,
                arguments: c
                    .arguments
                    .into_iter()
                    .map(|(name, required)| PromptArgView { name, required })
                    .collect(),
            })
            .collect(),
    }
}

fn resources(rt: Option<&McpRuntime>, query: Option<&str>) -> ResourcesReply {
    let q = query.unwrap_or("").to_lowercase();
    ResourcesReply {
        live: rt.is_some(),
        resources: rt
            .map(|r| r.resource_entries())
            .unwrap_or_default()
            .into_iter()
            .filter(|e| e.uri.to_lowercase().contains(&q))
            .take(RESOURCE_ROWS)
            .map(|e| ResourceView {
                token: format!("{RESOURCE_TOKEN}{}:{}", e.server, e.uri),
                server: e.server,
                uri: e.uri,
                name: e.name,
                template: e.template,
            })
            .collect(),
    }
}

async fn complete(
    s: &Services,
    ctx: &Ctx,
    req: CompleteRequest,
) -> Result<CompleteReply, ApiError> {
    let Some(rt) = live(s, ctx, &req.project_id, &req.conversation_id).await? else {
        return Ok(CompleteReply { values: Vec::new() });
    };
    let others: Vec<(String, String)> = req.others.unwrap_or_default().into_iter().collect();
    let asked = match (&req.prompt, &req.uri_template) {
        (Some(prompt), None) => {
            let f = rt.complete_prompt_argument(
                &req.server,
                prompt,
                &req.argument,
                &req.value,
                &others,
            );
            tokio::time::timeout(COMPLETE_WAIT, f).await
        }
        (None, Some(template)) => {
            let f = rt.complete_resource_argument(
                &req.server,
                template,
                &req.argument,
                &req.value,
                &others,
            );
            tokio::time::timeout(COMPLETE_WAIT, f).await
        }
        _ => {
            return Err(ApiError::new(
                Code::Invalid,
                "name exactly one of prompt and uriTemplate",
                json!({"field": "prompt"}),
            ))
        }
    };
    Ok(CompleteReply {
        values: asked.unwrap_or_default(),
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("conversation.prompts"),
        move |ctx: Ctx, req: PaletteRequest| {
            let s = s.clone();
            async move {
                let rt = live(&s, &ctx, &req.project_id, &req.conversation_id).await?;
                Ok::<PromptsReply, ApiError>(prompts(rt.as_deref()))
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.resources"),
        move |ctx: Ctx, req: PaletteRequest| {
            let s = s.clone();
            async move {
                let rt = live(&s, &ctx, &req.project_id, &req.conversation_id).await?;
                Ok::<ResourcesReply, ApiError>(resources(rt.as_deref(), req.query.as_deref()))
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.image"),
        move |ctx: Ctx, req: ImageRequest| {
            let s = s.clone();
            async move {
                let id = parse_id("conversationId", &req.conversation_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let (stored, image) = p
                    .send(ConversationImage {
                        conversation_id: id,
                        step_id: req.step_id,
                    })
                    .await
                    .map_err(mailbox)??
                    .ok_or_else(|| ApiError::not_found("image"))?;
                Ok::<ImageReply, ApiError>(ImageReply {
                    mime_type: image.mime_type,
                    data: image.data,
                    sha256: stored.sha256,
                })
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.complete"),
        move |ctx: Ctx, req: CompleteRequest| {
            let s = s.clone();
            async move { complete(&s, &ctx, req).await }
        },
    )?;
    Ok(())
}
