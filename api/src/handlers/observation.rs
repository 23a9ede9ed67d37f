//! `observation.snapshot`: current facts with the event cursor they correspond to (one message for the service's and the project's facts).

use super::services::{mailbox, project_id, spec, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::contract::CallerKind;
use rho_actors::observe::Snapshot;
use rho_actors::service_contract::SnapshotRequest;
use rho_actors::snapshot_contract::{project_view, CallerView, ProjectRowView, SnapshotReply};
use std::sync::Arc;

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("observation.snapshot"),
        move |ctx: Ctx, req: SnapshotRequest| {
            let s = s.clone();
            async move { snapshot(&s, &ctx, req).await }
        },
    )?;
    Ok(())
}

/// Whether `scope` reaches the project `id` in `dir`.
fn in_scope(scope: &Scope, id: uuid::Uuid, dir: &std::path::Path) -> bool {
    match scope {
        Scope::All => true,
        Scope::Project(p) => *p == id,
        Scope::Folder(f) => dir.starts_with(f),
    }
}

/// Who asked, and what it may reach.
fn caller_view(ctx: &Ctx) -> CallerView {
    let (folder, project_id) = match &ctx.scope {
        Scope::All => (None, None),
        Scope::Project(p) => (None, Some(p.to_string())),
        Scope::Folder(f) => (Some(f.display().to_string()), None),
    };
    CallerView {
        folder,
        kind: match ctx.caller {
            CallerKind::Local => "local",
            CallerKind::Operator => "operator",
            CallerKind::Agent => "agent",
            CallerKind::Paired => "paired",
        }
        .into(),
        principal: ctx.principal.to_string(),
        project_id,
    }
}

async fn snapshot(
    s: &Services,
    ctx: &Ctx,
    req: SnapshotRequest,
) -> Result<Box<serde_json::value::RawValue>, ApiError> {
    // The cursor is taken before the facts: an event after it is delivered on resume, so no
    // change can fall between the snapshot and the stream.
    let cursor = s.events.current_cursor();
    let requested = match (&req.project_id, &ctx.scope) {
        (Some(text), _) => Some(project_id("projectId", text)?),
        (None, Scope::Project(p)) => Some(*p),
        (None, _) => None,
    };
    let scope = ctx.scope.clone();
    let facts = s
        .service
        .send(Snapshot {
            project: requested,
            in_scope: Box::new(move |id, dir| in_scope(&scope, id, dir)),
        })
        .await
        .map_err(mailbox)??;
    // The fixed facts are spliced in already rendered; the reply is serialized once.
    let fixed = s.fixed();
    let mut doc = SnapshotReply {
        activity: Vec::new(),
        activity_cursor: None,
        agents: Vec::new(),
        caller: caller_view(ctx),
        cursor,
        conversations: None,
        project: None,
        projects: None,
        limits: &*fixed.limits,
        owners: &*fixed.owners,
    };
    match (requested, facts.project) {
        (Some(id), Some(p)) => {
            doc.project = Some(project_view(id, &p));
            // The agent owner's facts, rendered with the grant store this edge holds.
            super::agent_facts::fill(s, id, &mut doc).await;
            if matches!(ctx.caller, CallerKind::Local | CallerKind::Paired) {
                doc.conversations = conversations(s, ctx, id).await;
            }
        }
        _ => {
            doc.projects = Some(
                facts
                    .projects
                    .iter()
                    .map(|p| ProjectRowView {
                        available: p.available,
                        id: p.id.to_string(),
                        name: p.name.clone(),
                        path: p.dir.display().to_string(),
                        reason: p.reason.clone(),
                    })
                    .collect(),
            );
        }
    }
    let text = serde_json::to_string(&doc).map_err(ApiError::internal)?;
    if text.len() as u64 > s.limits.max_retained_metadata_bytes {
        return Err(ApiError::limit(
            "maxRetainedMetadataBytes",
            s.limits.max_retained_metadata_bytes,
        ));
    }
    serde_json::value::RawValue::from_string(text).map_err(ApiError::internal)
}

/// The project's conversations for the browser (`None` when the project does not answer).
async fn conversations(
    s: &Services,
    ctx: &Ctx,
    id: uuid::Uuid,
) -> Option<Vec<rho_actors::agent::conversation::contract::ConversationView>> {
    let addr = super::data::project(s, ctx, &id.to_string()).await.ok()?;
    let all = addr
        .send(rho_actors::agent::conversation::handlers::ListConversations)
        .await
        .ok()?
        .ok()?;
    Some(
        all.iter()
            .filter_map(rho_actors::agent::conversation::render::conversation)
            .collect(),
    )
}
