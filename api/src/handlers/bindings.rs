//! `binding.open/close/list/activity` (external binding metadata and its tool receipts) and `activity.report` (refusals the MCP adapter made locally).

use super::agent_facts::rfc3339;
use super::data::{project, write_ctx};
use super::services::{mailbox, spec, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::contract::{
    ActivityPage, ActivityRequest, BindingOut, CloseRequest, ListReply, ListRequest, OpenRequest,
    ReportReply, ReportRequest,
};
use rho_actors::agent::entity::{AgentCommand, Binding};
use rho_actors::agent::grants::valid_session;
use rho_actors::agent::handlers::{new_binding_id, BindingWrite, ReadAgentFacts};
use rho_actors::agent::Activity;
use rho_actors::Principal;
use std::sync::Arc;

fn out(b: &Binding) -> BindingOut {
    BindingOut {
        binding_id: b.id.to_string(),
        label: b.label.clone(),
        client: b.client.clone(),
        session: b.session.clone(),
        principal: b.principal.clone(),
        opened_at: rfc3339(b.opened_ms),
        closed_at: b.closed_ms.map(rfc3339),
    }
}

/// The Agent session of the caller, if it is an Agent.
fn own_session(ctx: &Ctx) -> Option<String> {
    match &ctx.principal {
        Principal::Agent(s) => Some(s.clone()),
        _ => None,
    }
}

fn text(field: &str, value: &str, max: usize) -> Result<(), ApiError> {
    let n = value.chars().count();
    if n == 0 || n > max || value.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            Some(field),
            format!("1 to {max} characters, no control characters"),
        ));
    }
    Ok(())
}

/// The binding `text` names in the project, visible to the caller (an Agent sees its own session's).
async fn find_binding(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    text: &str,
) -> Result<
    (
        actix::Addr<rho_actors::project_actor::ProjectActor>,
        Binding,
    ),
    ApiError,
> {
    let p = project(s, ctx, project_id).await?;
    let id = uuid::Uuid::parse_str(text).map_err(|_| ApiError::not_found("binding"))?;
    let facts = p
        .send(ReadAgentFacts { session: None })
        .await
        .map_err(mailbox)??;
    let own = own_session(ctx);
    let b = facts
        .bindings
        .into_iter()
        .find(|b| b.id == id && own.as_ref().is_none_or(|s| *s == b.session))
        .ok_or_else(|| ApiError::not_found("binding"))?;
    Ok((p, b))
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("binding.open"), move |ctx: Ctx, req: OpenRequest| {
        let s = s.clone();
        async move {
            text("label", &req.label, 200)?;
            text("client", &req.client, 64)?;
            let session = match (own_session(&ctx), &req.session) {
                (Some(own), None) => own,
                (Some(own), Some(asked)) if own == *asked => own,
                (Some(_), Some(_)) => {
                    return Err(ApiError::invalid(
                        Some("session"),
                        "an Agent opens bindings for its own session only",
                    ))
                }
                (None, Some(asked)) if valid_session(asked) => asked.clone(),
                (None, _) => {
                    return Err(ApiError::invalid(
                        Some("session"),
                        "the Agent session this binding belongs to (1-64 of A-Z a-z 0-9 . _ -)",
                    ))
                }
            };
            let cctx = write_ctx(&ctx, &req, &req.change_id)?;
            let binding = Binding {
                id: new_binding_id(),
                label: req.label.clone(),
                client: req.client.clone(),
                session,
                principal: ctx.principal.to_string(),
                opened_ms: cctx.time_ms,
                closed_ms: None,
            };
            let p = project(&s, &ctx, &req.project_id).await?;
            let b = p
                .send(BindingWrite {
                    command: AgentCommand::Open {
                        binding,
                        max: s.limits.max_bindings,
                    },
                    ctx: cctx,
                })
                .await
                .map_err(mailbox)??;
            Ok(out(&b))
        }
    })?;

    let s = services.clone();
    table.register(spec("binding.close"), move |ctx: Ctx, req: CloseRequest| {
        let s = s.clone();
        async move {
            let cctx = write_ctx(&ctx, &req, &req.change_id)?;
            let p = project(&s, &ctx, &req.project_id).await?;
            let id = uuid::Uuid::parse_str(&req.binding_id)
                .map_err(|_| ApiError::not_found("binding"))?;
            let b = p
                .send(BindingWrite {
                    command: AgentCommand::Close {
                        id,
                        session: own_session(&ctx),
                    },
                    ctx: cctx,
                })
                .await
                .map_err(mailbox)??;
            Ok(out(&b))
        }
    })?;

    let s = services.clone();
    table.register(spec("binding.list"), move |ctx: Ctx, req: ListRequest| {
        let s = s.clone();
        async move {
            let p = project(&s, &ctx, &req.project_id).await?;
            let facts = p
                .send(ReadAgentFacts { session: None })
                .await
                .map_err(mailbox)??;
            let mut bindings: Vec<&Binding> = facts.bindings.iter().collect();
            bindings.sort_by_key(|b| (b.opened_ms, b.id));
            Ok(ListReply {
                bindings: bindings.into_iter().map(out).collect(),
            })
        }
    })?;

    let s = services.clone();
    table.register(
        spec("binding.activity"),
        move |ctx: Ctx, req: ActivityRequest| {
            let s = s.clone();
            async move {
                let limit = req.limit.unwrap_or(50);
                if !(1..=256).contains(&limit) {
                    return Err(ApiError::invalid(Some("limit"), "1 to 256 records a page"));
                }
                let after: u64 = match &req.cursor {
                    None => 0,
                    Some(c) => c
                        .strip_prefix("a")
                        .and_then(|n| n.parse().ok())
                        .ok_or_else(|| {
                            ApiError::invalid(Some("cursor"), "not a binding.activity cursor")
                        })?,
                };
                let (p, b) = find_binding(&s, &ctx, &req.project_id, &req.binding_id).await?;
                let facts = p
                    .send(ReadAgentFacts {
                        session: Some(b.session.clone()),
                    })
                    .await
                    .map_err(mailbox)??;
                let rest: Vec<&Activity> =
                    facts.activities.iter().filter(|a| a.seq > after).collect();
                let page: Vec<&Activity> = rest.iter().take(limit as usize).copied().collect();
                let next = (rest.len() > page.len())
                    .then(|| page.last().map(|a| format!("a{}", a.seq)))
                    .flatten();
                Ok(ActivityPage {
                    binding_id: b.id.to_string(),
                    evicted: facts.evicted,
                    next_cursor: next,
                    oldest_seq: facts.oldest_seq,
                    records: page.iter().map(|a| a.view()).collect(),
                    session: b.session,
                })
            }
        },
    )?;

    table.register(
        spec("activity.report"),
        move |ctx: Ctx, req: ReportRequest| async move {
            let (Principal::Agent(session), Scope::Project(project)) = (&ctx.principal, &ctx.scope)
            else {
                return Err(ApiError::forbidden("only an Agent grant reports its calls"));
            };
            text("operation", &req.operation, 128)?;
            const CODES: &[&str] = &[
                "invalid",
                "not_found",
                "conflict",
                "stale",
                "expired",
                "limit",
                "unavailable",
                "unknown",
                "forbidden",
                "internal",
            ];
            if !CODES.contains(&req.refusal.code.as_str()) {
                return Err(ApiError::invalid(Some("refusal.code"), "a wire error code"));
            }
            if req.refusal.reason.chars().count() > 1000 {
                return Err(ApiError::invalid(
                    Some("refusal.reason"),
                    "at most 1000 characters",
                ));
            }
            // The reason may quote the Agent's input: it is not recorded.
            ctx.state.activity.record(
                *project,
                Activity {
                    seq: 0,
                    time_ms: rho_plumbing::time::now_ms(),
                    session: session.clone(),
                    method: req.operation.clone(),
                    outcome: "refused".into(),
                    code: Some(req.refusal.code.clone()),
                    source: "adapter".into(),
                    ids: Default::default(),
                },
            );
            Ok(ReportReply { accepted: true })
        },
    )?;
    Ok(())
}
