//! `observation.snapshot`: current facts with the event cursor they correspond to.

use super::{mailbox, project_id, spec, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::service::{DescribeProject, ListProjects};
use rho_actors::service_contract::SnapshotRequest;
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

async fn snapshot(
    s: &Services,
    ctx: &Ctx,
    req: SnapshotRequest,
) -> Result<Box<serde_json::value::RawValue>, ApiError> {
    // The cursor is taken before the facts: an event after it is delivered on resume, so no
    // change can fall between the snapshot and the stream.
    let cursor = s.events.current_cursor();
    let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
    let in_scope = |id: uuid::Uuid, dir: &std::path::Path| match &ctx.scope {
        Scope::All => true,
        Scope::Project(p) => *p == id,
        Scope::Folder(f) => dir.starts_with(f),
    };
    let requested = match (&req.project_id, &ctx.scope) {
        (Some(text), _) => Some(project_id("projectId", text)?),
        (None, Scope::Project(p)) => Some(*p),
        (None, _) => None,
    };
    let mut doc = json!({
        "cursor": cursor,
        "activity": [],
        "agents": [],
    });
    match requested {
        Some(id) => {
            let Some(row) = listing
                .iter()
                .find(|p| p.id == id && in_scope(p.id, &p.dir))
            else {
                return Err(ApiError::not_found("project"));
            };
            let project = match s
                .service
                .send(DescribeProject { id })
                .await
                .map_err(mailbox)?
            {
                Ok((info, entity)) => {
                    let addr = s
                        .service
                        .send(rho_actors::service::GetProject { id })
                        .await
                        .map_err(mailbox)??;
                    let docs = addr
                        .send(rho_actors::documents::handlers::ListDocuments)
                        .await
                        .map_err(mailbox)??;
                    json!({
                        "id": id.to_string(), "name": info.name, "path": row.dir,
                        "available": true, "version": entity.version,
                        "settings": entity.settings, "runs": [],
                        "documents": docs.iter().map(|d| json!({
                            "id": d.id, "path": d.path, "version": d.version, "open": d.open,
                            "dirty": d.dirty, "diskDigest": d.disk_digest, "length": d.length,
                        })).collect::<Vec<_>>(),
                    })
                }
                Err(e) => json!({
                    "id": id.to_string(), "name": row.name, "path": row.dir,
                    "available": false, "reason": e.to_string(), "runs": [],
                }),
            };
            doc["project"] = project;
            super::agent_facts::fill(s, id, &mut doc).await;
            if let Ok(addr) = s
                .service
                .send(rho_actors::service::GetProject { id })
                .await
                .map_err(mailbox)?
            {
                if let Ok(Ok(sel)) = addr
                    .send(rho_actors::tables::selection::ListSelections)
                    .await
                {
                    doc["project"]["selections"] = sel
                        .iter()
                        .map(|x| {
                            let (scope, holder) = match &x.scope {
                                rho_actors::tables::selection::SelectionScope::Caller(c) => ("caller", Some(c)),
                                rho_actors::tables::selection::SelectionScope::View(v) => ("view", Some(v)),
                                rho_actors::tables::selection::SelectionScope::Shared => ("shared", None),
                            };
                            json!({"scope": scope, "holder": holder, "namespace": x.namespace, "keys": x.keys, "version": x.version, "principal": x.principal})
                        })
                        .collect();
                }
            }
        }
        None => {
            doc["projects"] = listing
                .iter()
                .filter(|p| in_scope(p.id, &p.dir))
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
