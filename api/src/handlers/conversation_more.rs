//! `conversation.decide` (the local browser's decision on a finished message, holding the file
//! versions it kept) and the contexts a message names: each must exist in the project, and its
//! frozen content is given to the Agent as explicit context.

use super::data::project;
use super::services::{mailbox, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use actix::Addr;
use rho_actors::agent::conversation::contract::{DecideReply, DecideRequest};
use rho_actors::agent::conversation::entity::DecisionRecord;
use rho_actors::agent::conversation::handlers::DecideMessage;
use rho_actors::agent::conversation::render;
use rho_actors::contexts::handlers::ReadContext;
use rho_actors::entity::CommandContext;
use rho_actors::error::ActorError;
use rho_actors::identity::input_digest;
use rho_actors::project_actor::ProjectActor;
use std::sync::Arc;
use uuid::Uuid;

/// The frozen content of `ids` as the Agent is given it (`None` without contexts): each must be
/// a context of this project (`invalid` naming a malformed one, `not_found` naming an unknown
/// one); together with the text they are bounded by `conversations.maxMessageBytes`.
pub(super) async fn contexts(
    s: &Services,
    p: &Addr<ProjectActor>,
    ids: Option<&[String]>,
) -> Result<Option<String>, ApiError> {
    let Some(ids) = ids.filter(|ids| !ids.is_empty()) else {
        return Ok(None);
    };
    let mut out = String::from(
        "Frozen Rho contexts the person gave with this message, as they were frozen (cite them by contextId):",
    );
    for (i, text) in ids.iter().enumerate() {
        let Ok(id) = Uuid::parse_str(text) else {
            return Err(ApiError::new(
                crate::envelope::Code::Invalid,
                format!("contexts[{i}]: {text:?} is not a context id"),
                serde_json::json!({"field": "contexts", "index": i, "reason": "not a context id"}),
            ));
        };
        let record = match p.send(ReadContext { id }).await.map_err(mailbox)? {
            Ok(r) => r,
            Err(ActorError::NotFound { .. }) => {
                return Err(ApiError::not_found(format!("context {text}")))
            }
            Err(e) => return Err(e.into()),
        };
        let view = serde_json::to_string_pretty(&record.view())
            .map_err(|e| ApiError::from(ActorError::internal(e.to_string())))?;
        out.push_str(&format!("\n<context id=\"{text}\">\n{view}\n</context>"));
    }
    let max = s.limits.conversations.max_message_bytes;
    if out.len() as u64 > max {
        return Err(ApiError::limit("conversations.maxMessageBytes", max));
    }
    Ok(Some(out))
}

/// A conversation id of a request.
pub(super) fn parse_id(field: &str, text: &str) -> Result<Uuid, ApiError> {
    Uuid::parse_str(text).map_err(|_| ApiError::invalid(Some(field), "not a conversation id"))
}

async fn decide(s: &Services, ctx: &Ctx, req: DecideRequest) -> Result<DecideReply, ApiError> {
    if req.change_id.is_empty() {
        return Err(ApiError::invalid(
            Some("changeId"),
            "a changeId is required",
        ));
    }
    let note = req.note.as_deref().map(str::trim).filter(|n| !n.is_empty());
    match req.decision.as_str() {
        "accepted" => {}
        "needs-changes" if note.is_none() => {
            return Err(ApiError::invalid(
                Some("note"),
                "needs-changes requires a note saying what needs to change",
            ))
        }
        "needs-changes" => {}
        _ => {
            return Err(ApiError::invalid(
                Some("decision"),
                "accepted or needs-changes",
            ))
        }
    }
    let max = s.limits.conversations.max_message_bytes;
    if note.is_some_and(|n| n.len() as u64 > max) {
        return Err(ApiError::limit("conversations.maxMessageBytes", max));
    }
    let id = parse_id("conversationId", &req.conversation_id)?;
    let p = project(s, ctx, &req.project_id).await?;
    let time_ms = rho_plumbing::time::now_ms();
    let decision = DecisionRecord {
        decision_id: Uuid::new_v4().to_string(),
        change_id: req.change_id.clone(),
        decision: req.decision.clone(),
        note: note.map(str::to_string),
        at_ms: time_ms,
        by: ctx.principal.to_string(),
        supersedes: req.supersedes.clone(),
        files: Vec::new(),
    };
    let cctx = CommandContext {
        principal: ctx.principal.clone(),
        time_ms,
        identity: Some((req.change_id.clone(), input_digest(&req, "changeId"))),
        needs: ctx.needs.clone(),
    };
    let (state, decision_id) = p
        .send(DecideMessage {
            conversation_id: id,
            message_id: req.message_id.clone(),
            decision,
            ctx: cctx,
        })
        .await
        .map_err(mailbox)??;
    let found = state.messages.iter().find_map(|m| {
        m.decisions
            .iter()
            .find(|d| d.decision_id == decision_id)
            .map(|d| render::decision(&m.original.message_id, d))
    });
    let decision = found.ok_or_else(|| ApiError::not_found("decision"))?;
    Ok(DecideReply { decision })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("conversation.decide"),
        move |ctx: Ctx, req: DecideRequest| {
            let s = s.clone();
            async move { decide(&s, &ctx, req).await }
        },
    )?;
    Ok(())
}
