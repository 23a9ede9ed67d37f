//! Owner Tables over HTTP: `data.page`, `data.compare`, `selection.set`, `selection.read`.

use super::data::{files_error, project, resource_id, write_ctx};
use super::services::{mailbox, spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::tables::contract::{
    CompareRequest, PageRequest, SelectionReadRequest, SelectionRequest,
};
use rho_actors::tables::entity::{SelectionEvent, SelectionScope};
use rho_actors::tables::handlers::{DataCompare, DataPage, Join, ReadSelection, SetSelection};
use rho_actors::tables::load::TableBounds;
use rho_actors::tables::TablesError;
use serde_json::json;
use std::sync::Arc;

/// Maps a table refusal; cells that do not fit are `invalid` with the first problems by row and column.
pub(super) fn tables_error(e: TablesError) -> ApiError {
    match e {
        TablesError::Files(f) => files_error(f),
        TablesError::Problems(p) => {
            let first = p.first();
            ApiError::new(
                Code::Invalid,
                format!(
                    "the table does not fit its declaration: {}",
                    first.map_or(String::new(), |p| format!(
                        "row {}{}: {}",
                        p.row,
                        p.column
                            .as_ref()
                            .map_or(String::new(), |c| format!(", column {c:?}")),
                        p.reason
                    ))
                ),
                json!({"reason": "the table does not fit its declaration", "index": first.map(|p| p.row), "field": first.and_then(|p| p.column.clone()), "problems": p}),
            )
        }
    }
}

fn bounds(s: &Services) -> TableBounds {
    TableBounds {
        max_file_bytes: s.limits.resources.max_file_bytes,
        max_rows: s.limits.resources.max_rows,
    }
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(spec("data.page"), move |ctx: Ctx, req: PageRequest| {
        let s = s.clone();
        async move {
            let max = s.limits.resources.max_page_rows;
            if req.limit > max {
                return Err(ApiError::limit("resources.maxPageRows", max));
            }
            let id = resource_id(&req.resource.id)?;
            let p = project(&s, &ctx, &req.project_id).await?;
            p.send(DataPage {
                id,
                resource: req.resource,
                offset: req.offset,
                limit: req.limit,
                sort: req.sort,
                filter: req.filter,
                columns: req.columns,
                bounds: bounds(&s),
            })
            .await
            .map_err(mailbox)?
            .map_err(tables_error)
        }
    })?;

    let s = services.clone();
    table.register(
        spec("data.compare"),
        move |ctx: Ctx, req: CompareRequest| {
            let s = s.clone();
            async move {
                let fields = match (req.fields, req.left_field, req.right_field) {
                    (Some(f), None, None) if !f.is_empty() => f
                        .into_iter()
                        .map(|p| (p.left_field, p.right_field))
                        .collect(),
                    (None, Some(l), Some(r)) => vec![(l, r)],
                    (Some(_), Some(_), _) | (Some(_), _, Some(_)) => {
                        return Err(ApiError::invalid(
                            Some("fields"),
                            "give fields or leftField/rightField, not both",
                        ))
                    }
                    _ => {
                        return Err(ApiError::invalid(
                            Some("fields"),
                            "name at least one field pair",
                        ))
                    }
                };
                if req.mapping != "equal-string" {
                    return Err(ApiError::invalid(
                        Some("mapping"),
                        "the only mapping is equal-string",
                    ));
                }
                let join = match req.join.as_str() {
                    "left" => Join::Left,
                    "inner" => Join::Inner,
                    "full" => Join::Full,
                    _ => return Err(ApiError::invalid(Some("join"), "left, inner or full")),
                };
                let offset = match &req.cursor {
                    None => 0,
                    Some(c) => c.parse().map_err(|_| {
                        ApiError::invalid(Some("cursor"), "not a cursor of this comparison")
                    })?,
                };
                let left = (resource_id(&req.left.id)?, req.left.version);
                let right = (resource_id(&req.right.id)?, req.right.version);
                let p = project(&s, &ctx, &req.project_id).await?;
                p.send(DataCompare {
                    left,
                    right,
                    fields,
                    join,
                    offset,
                    page: s.limits.resources.max_page_rows,
                    bounds: bounds(&s),
                })
                .await
                .map_err(mailbox)?
                .map_err(tables_error)
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("selection.set"),
        move |ctx: Ctx, req: SelectionRequest| {
            let s = s.clone();
            async move {
                let wctx = write_ctx(&ctx, &req, &req.change_id)?;
                let scope = selection_scope(&ctx, &req.scope, req.view_id.as_ref())?;
                let p = project(&s, &ctx, &req.project_id).await?;
                Ok(p.send(SetSelection {
                    set: SelectionEvent::Set {
                        scope,
                        namespace: req.namespace,
                        keys: req.keys,
                    },
                    ctx: wctx,
                })
                .await
                .map_err(mailbox)??)
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("selection.read"),
        move |ctx: Ctx, req: SelectionReadRequest| {
            let s = s.clone();
            async move {
                let scope = selection_scope(&ctx, &req.scope, req.view_id.as_ref())?;
                let p = project(&s, &ctx, &req.project_id).await?;
                Ok(p.send(ReadSelection {
                    scope,
                    namespace: req.namespace,
                })
                .await
                .map_err(mailbox)??)
            }
        },
    )?;
    Ok(())
}

/// The scope a selection request names (`caller` is the caller's own).
fn selection_scope(
    ctx: &Ctx,
    scope: &str,
    view_id: Option<&String>,
) -> Result<SelectionScope, ApiError> {
    match (scope, view_id) {
        ("caller", None) => Ok(SelectionScope::Caller(ctx.principal.to_string())),
        ("view", Some(v)) if !v.is_empty() => Ok(SelectionScope::View(v.clone())),
        ("shared", None) => Ok(SelectionScope::Shared),
        ("view", _) => Err(ApiError::invalid(
            Some("viewId"),
            "scope view needs a viewId",
        )),
        ("caller" | "shared", Some(_)) => Err(ApiError::invalid(
            Some("viewId"),
            "only scope view takes a viewId",
        )),
        _ => Err(ApiError::invalid(Some("scope"), "caller, view or shared")),
    }
}
