//! `observation.snapshot`: current facts with the event cursor they correspond to (one message for the service's and the project's facts).

use super::{mailbox, project_id, spec, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::observe::{ProjectSnapshot, Snapshot};
use rho_actors::service_contract::SnapshotRequest;
use rho_actors::tables::selection::SelectionScope;
use serde_json::json;
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
    let mut doc = json!({
        "cursor": cursor,
        "activity": [],
        "agents": [],
    });
    match (requested, facts.project) {
        (
            Some(id),
            Some(ProjectSnapshot {
                listing: row,
                facts,
                selections,
            }),
        ) => {
            doc["project"] = match facts {
                Ok(f) => json!({
                    "id": id.to_string(), "name": f.entity.name, "path": row.dir,
                    "available": true, "version": f.entity.version,
                    "settings": f.entity.settings,
                    "runs": f.runs.iter().map(|r| rho_actors::runs::render::record(r, false)).collect::<Vec<_>>(),
                    "documents": f.documents.iter().map(|d| json!({
                        "id": d.id, "path": d.path, "version": d.version, "open": d.open,
                        "dirty": d.dirty, "diskDigest": d.disk_digest, "length": d.length,
                    })).collect::<Vec<_>>(),
                }),
                Err(e) => json!({
                    "id": id.to_string(), "name": row.name, "path": row.dir,
                    "available": false, "reason": e.to_string(), "runs": [],
                }),
            };
            // The agent owner's facts, rendered with the grant store this edge holds.
            super::agent_facts::fill(s, id, &mut doc).await;
            if let Some(sel) = selections {
                doc["project"]["selections"] = sel
                    .iter()
                    .map(|x| {
                        let (scope, holder) = match &x.scope {
                            SelectionScope::Caller(c) => ("caller", Some(c)),
                            SelectionScope::View(v) => ("view", Some(v)),
                            SelectionScope::Shared => ("shared", None),
                        };
                        json!({"scope": scope, "holder": holder, "namespace": x.namespace, "keys": x.keys, "version": x.version, "principal": x.principal})
                    })
                    .collect();
            }
        }
        _ => {
            doc["projects"] = facts
                .projects
                .iter()
                .map(|p| json!({"id": p.id.to_string(), "name": p.name, "path": p.dir, "available": p.available, "reason": p.reason}))
                .collect();
        }
    }
    // The fixed facts are spliced in already rendered; the reply is serialized once.
    let fixed = s.fixed();
    let mut text = serde_json::to_string(&doc).map_err(ApiError::internal)?;
    text.pop(); // the closing brace of `doc`
    text.push_str(",\"limits\":");
    text.push_str(fixed.limits.get());
    text.push_str(",\"owners\":");
    text.push_str(fixed.owners.get());
    text.push('}');
    if text.len() as u64 > s.limits.max_retained_metadata_bytes {
        return Err(ApiError::limit(
            "maxRetainedMetadataBytes",
            s.limits.max_retained_metadata_bytes,
        ));
    }
    serde_json::value::RawValue::from_string(text).map_err(ApiError::internal)
}
