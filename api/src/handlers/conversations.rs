//! `conversation.*`: check the request, start a conversation with its own grant (the driver's
//! setup and the grant: `conversation_setup.rs`), send one message with its contexts' content,
//! render the record (`conversation.decide` and the contexts: `conversation_more.rs`).

use super::conversation_more::{contexts, parse_id};
use super::conversation_setup::{check, driver_setup, grant, setup};
use super::data::project;
use super::services::{mailbox, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::conversation::contract::{
    DroppedView, ListReply, ListRequest, MessageReply, PermissionAnswer, PermissionReply,
    ReadReply, ReadRequest, SendRequest, StartReply, StartRequest, StopRequest,
};
use rho_actors::agent::conversation::entity::{ConversationEntity, Info, Original};
use rho_actors::agent::conversation::handlers::{
    AnswerPermission, ListConversations, ReadConversation, SendMessage, StartConversation,
    StopConversation,
};
use rho_actors::agent::conversation::render;
use rho_actors::agent::conversation::Backend;
use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use sha2::{Digest, Sha256};
use std::sync::Arc;
use uuid::Uuid;

/// The conversation of a start's changeId (the same changeId is the same conversation).
fn conversation_id(project: &str, change_id: &str) -> Uuid {
    let digest = Sha256::digest(format!("rho conversation\0{project}\0{change_id}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}

fn message_text(s: &Services, text: &str, change_id: &str) -> Result<(), ApiError> {
    if change_id.is_empty() {
        return Err(ApiError::invalid(
            Some("changeId"),
            "a changeId is required",
        ));
    }
    if text.trim().is_empty() {
        return Err(ApiError::invalid(Some("text"), "the message is empty"));
    }
    let max = s.limits.conversations.max_message_bytes;
    if text.len() as u64 > max {
        return Err(ApiError::limit("conversations.maxMessageBytes", max));
    }
    Ok(())
}

fn original(
    ctx: &Ctx,
    change_id: &str,
    text: &str,
    contexts: Option<&Vec<String>>,
    backend: Backend,
) -> Original {
    Original {
        message_id: Uuid::new_v4().to_string(),
        change_id: change_id.to_string(),
        text: text.to_string(),
        contexts: contexts.cloned().unwrap_or_default(),
        backend,
        sent_ms: rho_plumbing::time::now_ms(),
        sent_by: ctx.principal.to_string(),
    }
}

fn command_ctx<T: serde::Serialize>(ctx: &Ctx, req: &T, change_id: &str) -> CommandContext {
    CommandContext {
        principal: ctx.principal.clone(),
        time_ms: rho_plumbing::time::now_ms(),
        identity: Some((change_id.to_string(), input_digest(req, "changeId"))),
        needs: ctx.needs.clone(),
    }
}

/// The message `id`; one that went to keep `conversations.maxMessages` is `expired`.
fn message_of(
    c: &ConversationEntity,
    id: &str,
) -> Result<rho_actors::agent::conversation::contract::MessageView, ApiError> {
    match (c.message(id), &c.dropped_by) {
        (Some(m), _) => Ok(render::message(m)),
        (None, Some(limit)) => Err(ApiError::expired(format!(
            "that message was removed to keep {limit}"
        ))),
        (None, None) => Err(ApiError::not_found("message")),
    }
}

fn view(
    c: &ConversationEntity,
) -> Result<rho_actors::agent::conversation::contract::ConversationView, ApiError> {
    render::conversation(c).ok_or_else(|| ApiError::not_found("conversation"))
}

async fn start(s: &Services, ctx: &Ctx, req: StartRequest) -> Result<StartReply, ApiError> {
    message_text(s, &req.text, &req.change_id)?;
    let c = setup(s)?;
    let backend = match req.backend.as_deref() {
        None => c.default_backend,
        Some(name) => render::parse_backend(name).ok_or_else(|| {
            ApiError::invalid(Some("backend"), "claude, codex, claude-cli or rho")
        })?,
    };
    check(c, backend)?;
    let p = project(s, ctx, &req.project_id).await?;
    let context = contexts(s, &p, req.contexts.as_deref()).await?;
    let pid = super::services::project_id("projectId", &req.project_id)?;
    let id = conversation_id(&req.project_id, &req.change_id);
    let mcp = grant(s, pid, id).await?;
    let original = original(
        ctx,
        &req.change_id,
        &req.text,
        req.contexts.as_ref(),
        backend,
    );
    let info = Info {
        conversation_id: id,
        backend,
        title: req
            .text
            .lines()
            .next()
            .unwrap_or_default()
            .chars()
            .take(80)
            .collect(),
        started_ms: original.sent_ms,
        started_by: original.sent_by.clone(),
        mode: req.mode.clone(),
        agent_session_id: None,
        note: None,
        needs_choice: false,
        pgid: None,
    };
    let (state, message_id) = p
        .send(StartConversation {
            info,
            original,
            ctx: command_ctx(ctx, &req, &req.change_id),
            setup: driver_setup(c, backend, mcp, req.mode.clone()),
            context,
        })
        .await
        .map_err(mailbox)??;
    Ok(StartReply {
        conversation: view(&state)?,
        message: message_of(&state, &message_id)?,
    })
}

async fn send(s: &Services, ctx: &Ctx, req: SendRequest) -> Result<MessageReply, ApiError> {
    message_text(s, &req.text, &req.change_id)?;
    let c = setup(s)?;
    let id = parse_id("conversationId", &req.conversation_id)?;
    let p = project(s, ctx, &req.project_id).await?;
    let context = contexts(s, &p, req.contexts.as_deref()).await?;
    let pid = super::services::project_id("projectId", &req.project_id)?;
    let current = p
        .send(ReadConversation {
            conversation_id: id,
        })
        .await
        .map_err(mailbox)??;
    let Some(info) = current.info.clone() else {
        return Err(ApiError::not_found("conversation"));
    };
    let backend = info.backend;
    check(c, backend)?;
    if backend == Backend::Rho {
        super::conversation_palette::check_send(s, &p, &req.project_id, id, &req.text).await?;
    }
    let mcp = grant(s, pid, id).await?;
    let (state, message_id) = p
        .send(SendMessage {
            conversation_id: id,
            original: original(
                ctx,
                &req.change_id,
                &req.text,
                req.contexts.as_ref(),
                backend,
            ),
            ctx: command_ctx(ctx, &req, &req.change_id),
            setup: driver_setup(c, backend, mcp, info.mode.clone()),
            context,
            fresh: req.fresh_session == Some(true),
        })
        .await
        .map_err(mailbox)??;
    Ok(MessageReply {
        message: message_of(&state, &message_id)?,
    })
}

async fn read(s: &Services, ctx: &Ctx, req: ReadRequest) -> Result<ReadReply, ApiError> {
    let id = parse_id("conversationId", &req.conversation_id)?;
    let limit = req.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::invalid(Some("limit"), "limit is 1 to 100"));
    }
    let from: usize = match req.cursor.as_deref() {
        None => 0,
        Some(c) => c
            .parse()
            .map_err(|_| ApiError::invalid(Some("cursor"), "not a cursor of this conversation"))?,
    };
    let p = project(s, ctx, &req.project_id).await?;
    let c = p
        .send(ReadConversation {
            conversation_id: id,
        })
        .await
        .map_err(mailbox)??;
    let end = (from + limit as usize).min(c.messages.len());
    let messages = c.messages.get(from..end).unwrap_or_default();
    Ok(ReadReply {
        conversation: view(&c)?,
        messages: messages.iter().map(render::message).collect(),
        next_cursor: (end < c.messages.len()).then(|| end.to_string()),
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    use super::services::spec;
    let s = services.clone();
    table.register(
        spec("conversation.start"),
        move |ctx: Ctx, req: StartRequest| {
            let s = s.clone();
            async move { start(&s, &ctx, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.send"),
        move |ctx: Ctx, req: SendRequest| {
            let s = s.clone();
            async move { send(&s, &ctx, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.read"),
        move |ctx: Ctx, req: ReadRequest| {
            let s = s.clone();
            async move { read(&s, &ctx, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.list"),
        move |ctx: Ctx, req: ListRequest| {
            let s = s.clone();
            async move {
                let p = project(&s, &ctx, &req.project_id).await?;
                let all = p.send(ListConversations).await.map_err(mailbox)??;
                let removed = all.iter().filter(|c| c.removed.is_some()).count() as u64;
                Ok::<ListReply, ApiError>(ListReply {
                    conversations: all
                        .iter()
                        .filter(|c| c.removed.is_none())
                        .filter_map(render::conversation)
                        .collect(),
                    removed: (removed > 0).then(|| DroppedView {
                        count: removed,
                        limit: "conversations.maxConversations".into(),
                    }),
                })
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.stop"),
        move |ctx: Ctx, req: StopRequest| {
            let s = s.clone();
            async move {
                let bound = setup(&s)?.stop_bound;
                let id = parse_id("conversationId", &req.conversation_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let (state, message_id) = p
                    .send(StopConversation {
                        conversation_id: id,
                        bound,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok::<MessageReply, ApiError>(MessageReply {
                    message: message_of(&state, &message_id)?,
                })
            }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("conversation.permission"),
        move |ctx: Ctx, req: PermissionAnswer| {
            let s = s.clone();
            async move {
                let id = parse_id("conversationId", &req.conversation_id)?;
                let p = project(&s, &ctx, &req.project_id).await?;
                let state = p
                    .send(AnswerPermission {
                        conversation_id: id,
                        request_id: req.request_id.clone(),
                        option_id: req.option_id.clone(),
                        by: ctx.principal.to_string(),
                    })
                    .await
                    .map_err(mailbox)??;
                let asked = state
                    .messages
                    .iter()
                    .map(render::message)
                    .flat_map(|m| m.permissions)
                    .find(|p| p.request_id == req.request_id)
                    .ok_or_else(|| ApiError::not_found("permission request"))?;
                Ok::<PermissionReply, ApiError>(PermissionReply { permission: asked })
            }
        },
    )?;
    super::conversation_more::register(table, services)?;
    super::conversation_surfaces::register(table, services)?;
    super::conversation_palette::register(table, services)
}
