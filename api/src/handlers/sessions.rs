//! `session.grant`, `session.revoke`, `session.instructions`: each parses, sends one message to the `AgentAccess` actor and maps the reply.

use super::agent_facts::rfc3339;
use super::services::{mailbox, project_id, spec, Services};
use crate::envelope::{ApiError, Code};
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use actix::Addr;
use rho_actors::agent::access::{
    AccessError, AgentAccess, GrantAccess, Granted, ProjectRef, ReadInstructions, RevokeAccess,
};
use rho_actors::agent::contract::session::{
    GrantReply, GrantRequest, InstructionsReply, InstructionsRequest, RevokeReply, RevokeRequest,
};
use rho_actors::agent::grants::valid_session;
use rho_actors::service::ListProjects;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use uuid::Uuid;

impl From<AccessError> for ApiError {
    fn from(e: AccessError) -> Self {
        let message = e.to_string();
        match e {
            AccessError::Invalid { field, reason } => ApiError::invalid(Some(field), reason),
            AccessError::NotGrantable { methods } => ApiError::new(
                Code::Invalid,
                message,
                json!({"field": "methods", "reason": "unknown or not grantable", "methods": methods}),
            ),
            AccessError::OwnersUnselected { owners, .. } => {
                let owners: Vec<&str> = owners.iter().map(String::as_str).collect();
                ApiError::unavailable(&owners, message)
            }
            AccessError::TooManyMethods { requested, max } => ApiError::new(
                Code::Limit,
                message,
                json!({"limit": "layeredGrantLimits.maxMethods", "value": max, "requested": requested}),
            ),
            AccessError::Profile { .. } | AccessError::NoClient { .. } => {
                ApiError::unavailable(&[], message)
            }
            AccessError::NotFound { .. } => ApiError::new(Code::NotFound, message, json!({})),
            AccessError::Refused {
                client, grant_kept, ..
            } => ApiError::new(
                Code::Unavailable,
                message,
                json!({"missing": [], "reason": "the client refused the connection",
                    "client": client.view(), "grantKept": grant_kept}),
            ),
            AccessError::Internal(detail) => ApiError::internal(detail),
        }
    }
}

/// The Agent access actor of this service; without it `session.*` is unavailable.
pub(super) fn access(s: &Services) -> Result<&Addr<AgentAccess>, ApiError> {
    s.agent.as_ref().ok_or_else(|| {
        ApiError::unavailable(&["agent"], "Agent access is not set up in this service")
    })
}

/// A registered project's name and folder; outside the registry it is `not_found`.
pub(super) async fn project_facts(s: &Services, id: Uuid) -> Result<(String, PathBuf), ApiError> {
    let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
    listing
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| (p.name, p.dir))
        .ok_or_else(|| ApiError::not_found("project"))
}

/// A folder below the root: relative, without `..`.
fn folder(text: &str) -> Result<ProjectRef, ApiError> {
    let rel = Path::new(text);
    if text.is_empty()
        || rel.is_absolute()
        || rel
            .components()
            .any(|c| !matches!(c, std::path::Component::Normal(_)))
    {
        return Err(ApiError::invalid(
            Some("folder"),
            "a folder relative to the service root, without `..`",
        ));
    }
    Ok(ProjectRef::Folder(text.to_string()))
}

fn check_session(session: &str) -> Result<(), ApiError> {
    if valid_session(session) {
        Ok(())
    } else {
        Err(ApiError::invalid(
            Some("session"),
            "a session name has 1 to 64 of A-Z a-z 0-9 . _ - and does not start with a dot",
        ))
    }
}

/// The wire form of a grant (never the token).
pub(super) fn grant_reply(g: Granted) -> GrantReply {
    GrantReply {
        project_id: g.project_id.to_string(),
        project_name: g.project_name,
        session: g.record.session.clone(),
        profile: g.record.profile.clone(),
        methods: g.record.methods.iter().cloned().collect(),
        expires_at: rfc3339(g.record.expires_ms),
        created_at: rfc3339(g.record.created_ms),
        connection_file: g.connection_file.display().to_string(),
        reused: g.reused,
        mcp: g.mcp,
    }
}

/// Grants (or keeps) access; the reply never carries the token.
async fn grant(s: &Services, req: GrantRequest) -> Result<GrantReply, ApiError> {
    let access = access(s)?;
    check_session(&req.session)?;
    let project = match (&req.project_id, &req.folder) {
        (Some(id), None) => ProjectRef::Id(project_id("projectId", id)?),
        (None, Some(text)) => folder(text)?,
        _ => {
            return Err(ApiError::invalid(
                Some("projectId"),
                "give exactly one of projectId and folder",
            ))
        }
    };
    let granted = access
        .send(GrantAccess {
            project,
            session: req.session,
            methods: req.methods,
            profile: req.profile,
            expires_at: req.expires_at,
        })
        .await
        .map_err(mailbox)??;
    Ok(grant_reply(granted))
}

async fn revoke(s: &Services, req: RevokeRequest) -> Result<RevokeReply, ApiError> {
    check_session(&req.session)?;
    let project = project_id("projectId", &req.project_id)?;
    let revoked = access(s)?
        .send(RevokeAccess {
            project,
            session: req.session.clone(),
        })
        .await
        .map_err(mailbox)??;
    if !revoked {
        return Err(ApiError::not_found(format!(
            "a grant for session {:?} in this project",
            req.session
        )));
    }
    tracing::info!(project = %project, session = %req.session, "Agent grant revoked");
    Ok(RevokeReply {
        project_id: req.project_id,
        session: req.session,
        revoked: true,
    })
}

async fn instructions(
    s: &Services,
    req: InstructionsRequest,
) -> Result<InstructionsReply, ApiError> {
    let access = access(s)?;
    let project = project_id("projectId", &req.project_id)?;
    let session = req.session.unwrap_or_else(|| "claude-code".into());
    check_session(&session)?;
    let i = access
        .send(ReadInstructions { project, session })
        .await
        .map_err(mailbox)??;
    Ok(InstructionsReply {
        project_id: project.to_string(),
        project_name: i.project_name,
        session: i.session,
        mcp: i.mcp,
        granted: i.granted,
        grant_command: i.grant_command,
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("session.grant"),
        move |_ctx: Ctx, req: GrantRequest| {
            let s = s.clone();
            async move { grant(&s, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("session.revoke"),
        move |_ctx: Ctx, req: RevokeRequest| {
            let s = s.clone();
            async move { revoke(&s, req).await }
        },
    )?;
    let s = services.clone();
    table.register(
        spec("session.instructions"),
        move |_ctx: Ctx, req: InstructionsRequest| {
            let s = s.clone();
            async move { instructions(&s, req).await }
        },
    )?;
    Ok(())
}
