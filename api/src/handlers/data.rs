//! Request helpers every owner's handlers share: owner selection, the scoped project actor, write identities, resource ids, byte-reader refusals.

use super::services::{mailbox, project_id, Services};
use crate::access::Scope;
use crate::envelope::ApiError;
use crate::ops::Ctx;
use actix::Addr;
use rho_actors::entity::CommandContext;
use rho_actors::files::FilesError;
use rho_actors::identity::input_digest;
use rho_actors::project_actor::ProjectActor;
use rho_actors::service::{GetProject, ListProjects};
use serde::Serialize;
use serde_json::json;

/// The actor of the request's project; a project outside the caller's scope is `not_found`.
pub(super) async fn project(
    s: &Services,
    ctx: &Ctx,
    text: &str,
) -> Result<Addr<ProjectActor>, ApiError> {
    let id = project_id("projectId", text)?;
    if let Scope::Folder(folder) = &ctx.scope {
        let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
        if !listing
            .iter()
            .any(|p| p.id == id && p.dir.starts_with(folder))
        {
            return Err(ApiError::not_found("project"));
        }
    }
    Ok(s.service.send(GetProject { id }).await.map_err(mailbox)??)
}

/// The command context of a write under `changeId`, with the digest of its request.
pub(super) fn write_ctx<T: Serialize>(
    ctx: &Ctx,
    request: &T,
    change_id: &str,
) -> Result<CommandContext, ApiError> {
    if change_id.is_empty() || change_id.len() > 128 {
        return Err(ApiError::invalid(
            Some("changeId"),
            "a changeId has 1 to 128 bytes",
        ));
    }
    Ok(CommandContext {
        principal: ctx.principal.clone(),
        time_ms: rho_plumbing::time::now_ms(),
        identity: Some((change_id.to_string(), input_digest(request, "changeId"))),
        needs: ctx.needs.clone(),
    })
}

/// The record and exact bytes of one resource version of the request's project: `stale` when
/// an uncaptured file changed since, `not_found` for an unknown, guessed or foreign id.
pub(super) async fn load_bytes(
    s: &Services,
    ctx: &Ctx,
    project_id: &str,
    resource: &str,
    version: u64,
) -> Result<(rho_actors::files::ResourceRecord, Vec<u8>), ApiError> {
    let id = resource_id(resource)?;
    let p = project(s, ctx, project_id).await?;
    p.send(rho_actors::files::handlers::LoadResource {
        id,
        version,
        max_file_bytes: s.limits.resources.max_file_bytes,
    })
    .await
    .map_err(mailbox)?
    .map_err(files_error)
}

/// A resource id: anything but a UUID names no resource (`not_found`, never `invalid`).
pub(super) fn resource_id(text: &str) -> Result<uuid::Uuid, ApiError> {
    uuid::Uuid::parse_str(text).map_err(|_| ApiError::not_found("resource"))
}

/// Maps a refusal of a byte-reading owner; `stale` carries both digests.
pub(super) fn files_error(e: FilesError) -> ApiError {
    match e {
        FilesError::Actor(a) => ApiError::from(a),
        FilesError::Stale { recorded, current } => ApiError::stale(
            "the file changed since this version was registered and the version was not captured",
            json!({"sha256": recorded, "currentSha256": current}),
        ),
    }
}
