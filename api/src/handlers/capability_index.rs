//! `capability.index` and `capability.resolve`: small pages of the caller's catalog, then whole contracts and skills within a byte budget.

use super::knowledge::{budget, cursor, offset, query_digest, view, View, MAX_BYTES};
use super::services::{spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::catalog::{owner_label, published};
use rho_actors::agent::contract::session::{
    IndexOperation, IndexReply, IndexRequest, IndexScope, KnowledgeObject, OwnerSummary, Ref,
    ResolveReply, ResolveRequest,
};
use rho_actors::agent::skills;
use rho_actors::contract::registry;
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// Operations per index page.
pub(crate) const PAGE: usize = 20;
/// Room kept in a page for the reply's own fields (`complete`, `nextCursor`, ...).
const RESERVE: u64 = 256;

fn scope(v: &View) -> IndexScope {
    IndexScope {
        project_id: v.project_id.to_string(),
        project_name: v.project_name.clone(),
        session: v.session.clone(),
        profile: v.profile.clone(),
        expires_at: v.expires_ms.map(super::agent_facts::rfc3339),
        method_count: v.method_count as u64,
    }
}

async fn index(s: &Services, ctx: &Ctx, req: IndexRequest) -> Result<IndexReply, ApiError> {
    let max = budget(req.max_bytes)?;
    let v = view(s, ctx, &req.project_id).await?;
    let search = req.search.as_deref().map(str::to_lowercase);
    if search
        .as_ref()
        .is_some_and(|t| t.is_empty() || t.len() > 200)
    {
        return Err(ApiError::invalid(
            Some("search"),
            "search text has 1 to 200 characters",
        ));
    }
    let query = query_digest(&[
        "index",
        req.owner.as_deref().unwrap_or("\u{1}"),
        search.as_deref().unwrap_or("\u{1}"),
    ]);
    let start = match &req.cursor {
        Some(c) => offset("i", c, &query, &v)?,
        None => 0,
    };
    let first = req.cursor.is_none();
    if req.owner.is_none() && search.is_none() {
        let mut groups: BTreeMap<&str, u64> = BTreeMap::new();
        for op in &v.ops {
            *groups.entry(owner_label(op)).or_default() += 1;
        }
        let owners = groups
            .into_iter()
            .map(|(owner, n)| {
                let skill = skills::for_owner(owner);
                OwnerSummary {
                    owner: owner.to_string(),
                    summary: skill.summary.to_string(),
                    operations: n,
                    skill: Ref {
                        reference: skill.reference.clone(),
                    },
                }
            })
            .collect();
        return Ok(IndexReply {
            scope: first.then(|| scope(&v)),
            owners: Some(owners),
            operations: None,
            next_cursor: None,
        });
    }
    if let Some(owner) = &req.owner {
        if !v.ops.iter().any(|op| owner_label(op) == owner) {
            return Err(ApiError::not_found(format!(
                "owner {owner:?} among the operations you may call"
            )));
        }
    }
    let matching: Vec<_> = v
        .ops
        .iter()
        .filter(|op| req.owner.as_deref().is_none_or(|o| owner_label(op) == o))
        .filter(|op| {
            search.as_deref().is_none_or(|t| {
                op.name.to_lowercase().contains(t) || op.summary.to_lowercase().contains(t)
            })
        })
        .collect();
    let mut page = Vec::new();
    let mut used = RESERVE + if first { 512 } else { 0 };
    let mut at = start.min(matching.len());
    while at < matching.len() && page.len() < PAGE {
        let op = matching[at];
        let entry = IndexOperation {
            name: op.name.to_string(),
            owner: owner_label(op).to_string(),
            summary: op.summary.to_string(),
            effect: if op.effect == rho_actors::contract::Effect::Read {
                "read".into()
            } else {
                "write".into()
            },
            contract: Ref {
                reference: published(op).reference.clone(),
            },
            skill: Ref {
                reference: skills::for_operation(op).reference.clone(),
            },
        };
        let size = serde_json::to_string(&entry).map_or(0, |t| t.len() as u64 + 1);
        if !page.is_empty() && used + size > max {
            break;
        }
        used += size;
        page.push(entry);
        at += 1;
    }
    Ok(IndexReply {
        scope: first.then(|| scope(&v)),
        owners: None,
        operations: Some(page),
        next_cursor: (at < matching.len()).then(|| cursor("i", at, &query, &v)),
    })
}

/// One object of a resolve selection, before paging.
struct Candidate {
    reference: String,
    kind: &'static str,
    name: String,
    body: Value,
}

async fn resolve(s: &Services, ctx: &Ctx, req: ResolveRequest) -> Result<ResolveReply, ApiError> {
    let limits = &s.limits.layered_grant_limits;
    if req.operations.is_empty() {
        return Err(ApiError::invalid(
            Some("operations"),
            "name 1 to 16 operations",
        ));
    }
    if req.operations.len() as u64 > limits.max_entries {
        return Err(ApiError::limit(
            "layeredGrantLimits.maxEntries",
            limits.max_entries,
        ));
    }
    let known: BTreeSet<&str> = req
        .known_refs
        .iter()
        .flatten()
        .map(String::as_str)
        .collect();
    if req
        .known_refs
        .as_ref()
        .is_some_and(|k| k.len() as u64 > limits.max_known_refs)
    {
        return Err(ApiError::limit(
            "layeredGrantLimits.maxKnownRefs",
            limits.max_known_refs,
        ));
    }
    let max = budget(req.max_bytes)?;
    let mut seen = BTreeSet::new();
    for name in &req.operations {
        if !seen.insert(name.as_str()) {
            return Err(ApiError::invalid(
                Some("operations"),
                format!("{name} is named twice"),
            ));
        }
    }
    let v = view(s, ctx, &req.project_id).await?;
    let mut candidates = Vec::new();
    let mut skills_added = BTreeSet::new();
    for name in &req.operations {
        let Some(op) = v.ops.iter().find(|op| op.name == name) else {
            return Err(if let Some(op) = registry::find(name) {
                if v.methods.contains(name) {
                    let owner = op.owner.map_or("service", |o| o.name());
                    ApiError::unavailable(
                        &[owner],
                        format!("{name} is granted but its owner {owner} is not available"),
                    )
                } else {
                    ApiError::forbidden(format!("{name} is not among the operations you may call"))
                }
            } else {
                ApiError::not_found(format!("operation {name:?}"))
            });
        };
        let skill = skills::for_operation(op);
        if skills_added.insert(skill.name) {
            candidates.push(Candidate {
                reference: skill.reference.clone(),
                kind: "skill",
                name: skill.name.to_string(),
                body: Value::String(skill.body.to_string()),
            });
        }
        let p = published(op);
        candidates.push(Candidate {
            reference: p.reference.clone(),
            kind: "contract",
            name: op.name.to_string(),
            body: p.body.clone(),
        });
    }
    let objects: Vec<(KnowledgeObject, u64)> = candidates
        .into_iter()
        .map(|c| {
            let is_known = known.contains(c.reference.as_str());
            let o = KnowledgeObject {
                reference: c.reference,
                kind: c.kind.to_string(),
                name: c.name,
                body: (!is_known).then_some(c.body),
                known: is_known.then_some(true),
            };
            let size = serde_json::to_string(&o).map_or(0, |t| t.len() as u64 + 1);
            (o, size)
        })
        .collect();
    if let Some((o, size)) = objects.iter().find(|(_, size)| size + RESERVE > MAX_BYTES) {
        return Err(ApiError::new(
            Code::Limit,
            format!(
                "{} {} is {size} bytes, over the 64 KiB knowledge response maximum (never split)",
                o.kind, o.name
            ),
            json!({"limit": "knowledgeResponseBytes", "value": MAX_BYTES, "ref": o.reference, "bytes": size}),
        ));
    }
    let mut q: Vec<&str> = vec!["resolve"];
    q.extend(req.operations.iter().map(String::as_str));
    let query = query_digest(&q);
    let start = match &req.cursor {
        Some(c) => offset("r", c, &query, &v)?,
        None => 0,
    }
    .min(objects.len());
    let mut page = Vec::new();
    let mut used = RESERVE;
    let mut at = start;
    while at < objects.len() {
        let (o, size) = &objects[at];
        if used + size > max {
            if page.is_empty() {
                return Ok(ResolveReply {
                    objects: Vec::new(),
                    complete: false,
                    next_cursor: Some(cursor("r", at, &query, &v)),
                    required_bytes: Some(size + RESERVE),
                });
            }
            break;
        }
        used += size;
        page.push(o.clone());
        at += 1;
    }
    let complete = at >= objects.len();
    Ok(ResolveReply {
        objects: page,
        complete,
        next_cursor: (!complete).then(|| cursor("r", at, &query, &v)),
        required_bytes: None,
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("capability.index"),
        move |ctx: Ctx, req: IndexRequest| {
            let s = s.clone();
            async move { index(&s, &ctx, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("capability.resolve"),
        move |ctx: Ctx, req: ResolveRequest| {
            let s = s.clone();
            async move { resolve(&s, &ctx, req).await }
        },
    )?;
    Ok(())
}
