//! How a conversation's driver is set up: the service's conversation setup, the backend's
//! availability check, the conversation's own grant, and the driver setup a start, a send or a
//! palette read (after a restart) builds from them.

use super::services::{mailbox, Services};
use super::sessions::access;
use crate::envelope::{ApiError, Code};
use rho_actors::agent::access::{GrantAccess, ProjectRef};
use rho_actors::agent::conversation::driver::{ServiceSetup, Setup, INSTRUCTIONS};
use rho_actors::agent::conversation::handlers::ReadConversation;
use rho_actors::agent::conversation::render;
use rho_actors::agent::conversation::{Backend, LaunchError};
use serde_json::json;
use uuid::Uuid;

pub(super) fn setup(s: &Services) -> Result<&ServiceSetup, ApiError> {
    s.conversations.as_ref().ok_or_else(|| {
        ApiError::unavailable(
            &["conversations"],
            "conversations are not set up in this service",
        )
    })
}

/// `unavailable` naming what is missing and the one install command; nothing is installed.
/// Rho's own agent: `unavailable` naming what its model is missing.
pub(super) fn check(setup: &ServiceSetup, backend: Backend) -> Result<(), ApiError> {
    if backend == Backend::Rho {
        return match setup.native.model() {
            Ok(_) => Ok(()),
            Err(why) => Err(ApiError::new(
                Code::Unavailable,
                why,
                json!({"missing": ["model"]}),
            )),
        };
    }
    match setup.runtimes.check(backend) {
        Ok(()) => Ok(()),
        Err(LaunchError::Unavailable {
            missing, install, ..
        }) => Err(ApiError::new(
            Code::Unavailable,
            format!(
                "{} is not installed: missing {}; install the pinned adapters with: {install}",
                render::backend(backend),
                missing.join(", ")
            ),
            json!({"missing": missing, "install": install}),
        )),
        Err(e) => Err(ApiError::unavailable(&[backend.name()], e.to_string())),
    }
}

/// The conversation's own grant: its MCP server entry for the adapter, and its connection
/// file (Rho's own agent loads its project tools from it).
pub(super) async fn grant(
    s: &Services,
    project: Uuid,
    id: Uuid,
) -> Result<(Vec<serde_json::Value>, std::path::PathBuf), ApiError> {
    let granted = access(s)?
        .send(GrantAccess {
            project: ProjectRef::Id(project),
            session: format!("conversation-{}", &id.simple().to_string()[..12]),
            methods: None,
            profile: None,
            expires_at: None,
        })
        .await
        .map_err(mailbox)??;
    let m = granted.mcp;
    Ok((
        vec![json!({"name": m.name, "command": m.command, "args": m.args, "env": []})],
        granted.connection_file,
    ))
}

pub(super) fn driver_setup(
    c: &ServiceSetup,
    backend: Backend,
    (mcp, grant_file): (Vec<serde_json::Value>, std::path::PathBuf),
    mode: Option<String>,
) -> Setup {
    Setup {
        runtimes: c.runtimes.clone(),
        backend,
        cwd: Default::default(),
        mcp,
        resume: None,
        mode,
        limits: c.limits,
        turn: c.turn,
        keep: c.keep,
        instructions: Some(INSTRUCTIONS.to_string()),
        native: c.native.clone(),
        grant_file: (backend == Backend::Rho).then_some(grant_file),
    }
}

/// The setup a driver of Rho's own agent is started with for the panel's palettes when none
/// runs (Rho restarted): `None` for another backend, a removed conversation, or a model that is
/// not configured (the palettes then answer `live: false`).
pub(super) async fn palette_setup(
    s: &Services,
    p: &actix::Addr<rho_actors::project_actor::ProjectActor>,
    project_id: &str,
    id: Uuid,
) -> Result<Option<Setup>, ApiError> {
    let c = setup(s)?;
    let state = p
        .send(ReadConversation {
            conversation_id: id,
        })
        .await
        .map_err(mailbox)??;
    let Some(info) = state.info.as_ref() else {
        return Ok(None);
    };
    if info.backend != Backend::Rho || state.removed.is_some() || check(c, info.backend).is_err() {
        return Ok(None);
    }
    let pid = super::services::project_id("projectId", project_id)?;
    let mcp = grant(s, pid, id).await?;
    Ok(Some(driver_setup(c, Backend::Rho, mcp, info.mode.clone())))
}
