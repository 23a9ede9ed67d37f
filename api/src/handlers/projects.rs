//! `project.create`, `project.open`, `project.list` and `project.entries`.

use super::services::{mailbox, project_id, spec, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::contract::CallerKind;
use rho_actors::project_actor::ListEntries;
use rho_actors::service::{CreateProject, GetProject, ListProjects, OpenFolder, ProjectInfo};
use rho_actors::service_contract::{
    Empty, EntriesReply, EntriesRequest, Entry, ProjectCreateRequest, ProjectListReply,
    ProjectListing, ProjectOpenRequest, ProjectRef,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn project_ref(info: ProjectInfo) -> ProjectRef {
    ProjectRef {
        id: info.id.to_string(),
        name: info.name,
        path: info.dir.display().to_string(),
    }
}

/// Whether a folder-scoped caller may see `dir`.
fn in_scope(scope: &Scope, dir: &Path) -> bool {
    match scope {
        Scope::Folder(folder) => dir.starts_with(folder),
        _ => true,
    }
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("project.create"),
        move |ctx: Ctx, req: ProjectCreateRequest| {
            let s = s.clone();
            async move {
                if matches!(ctx.scope, Scope::Folder(_)) {
                    return Err(ApiError::forbidden(
                        "a tab paired to one folder cannot create projects",
                    ));
                }
                let info = s
                    .service
                    .send(CreateProject {
                        name: req.name,
                        principal: ctx.principal,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(project_ref(info))
            }
        },
    )?;

    let s = services.clone();
    table.register(
        spec("project.open"),
        move |ctx: Ctx, req: ProjectOpenRequest| {
            let s = s.clone();
            async move {
                let dir = resolve_open_path(&s.root, &req.path, ctx.caller)?;
                if !in_scope(&ctx.scope, &dir) {
                    return Err(ApiError::forbidden(
                        "the folder is outside this tab's folder",
                    ));
                }
                let info = s
                    .service
                    .send(OpenFolder {
                        dir,
                        principal: ctx.principal,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(project_ref(info))
            }
        },
    )?;

    let s = services.clone();
    table.register(spec("project.list"), move |ctx: Ctx, _req: Empty| {
        let s = s.clone();
        async move {
            let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
            let projects = listing
                .into_iter()
                .filter(|p| in_scope(&ctx.scope, &p.dir))
                .map(|p| ProjectListing {
                    id: p.id.to_string(),
                    name: p.name,
                    path: p.dir.display().to_string(),
                    available: p.available,
                    reason: p.reason,
                })
                .collect();
            Ok(ProjectListReply { projects })
        }
    })?;

    let s = services.clone();
    table.register(
        spec("project.entries"),
        move |ctx: Ctx, req: EntriesRequest| {
            let s = s.clone();
            async move {
                let id = project_id("projectId", &req.project_id)?;
                let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
                let known = listing.iter().find(|p| p.id == id);
                if known.is_none_or(|p| !in_scope(&ctx.scope, &p.dir)) {
                    return Err(ApiError::not_found("project"));
                }
                let project = s.service.send(GetProject { id }).await.map_err(mailbox)??;
                let page = project
                    .send(ListEntries {
                        path: req.path.unwrap_or_default(),
                        cursor: req.cursor,
                    })
                    .await
                    .map_err(mailbox)??;
                Ok(EntriesReply {
                    entries: page
                        .entries
                        .into_iter()
                        .map(|e| Entry {
                            name: e.name,
                            path: e.path,
                            kind: e.kind.to_string(),
                            bytes: e.bytes,
                            modified: e.modified_ms.and_then(rho_plumbing::time::rfc3339_ms_opt),
                        })
                        .collect(),
                    next: page.next,
                })
            }
        },
    )?;
    Ok(())
}

/// `project.open`'s path: relative to the root, or absolute outside it for the person and the operator.
fn resolve_open_path(root: &Path, path: &str, caller: CallerKind) -> Result<PathBuf, ApiError> {
    let p = Path::new(path);
    if p.is_absolute() {
        if !matches!(caller, CallerKind::Local | CallerKind::Operator) {
            return Err(ApiError::forbidden("only the person at this machine or the operator may open a folder by absolute path"));
        }
        return Ok(p.to_path_buf());
    }
    let parts = rho_actors::paths::components("path", path).map_err(ApiError::from)?;
    if parts.is_empty() {
        return Err(ApiError::invalid(
            Some("path"),
            "name a folder below the root",
        ));
    }
    let mut dir = root.to_path_buf();
    for part in parts {
        dir.push(part);
    }
    // A symlink below the root may not lead out of it.
    match dir.canonicalize() {
        Ok(real) if !real.starts_with(root) => Err(ApiError::invalid(
            Some("path"),
            "the folder leaves the projects folder through a symlink",
        )),
        _ => Ok(dir),
    }
}
