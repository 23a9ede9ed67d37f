//! `session.grant`, `session.revoke`, `session.instructions`: project-scoped Agent credentials and their private connection files.

use super::agent_facts::rfc3339;
use super::agent_files::{file_body_for, file_holds, write_private};
use super::{mailbox, project_id, spec, Services};
use crate::agent_grants::now_ms;
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::catalog::{self, default_methods};
use rho_actors::agent::grants::{
    valid_session, GrantRegistry, GrantScope, Minted, BUSINESS_PROFILE,
};
use rho_actors::agent::session_contract::{
    GrantReply, GrantRequest, InstructionsReply, InstructionsRequest, McpEntry, RevokeReply,
    RevokeRequest,
};
use rho_actors::contract::registry;
use rho_actors::service::ListProjects;
use serde_json::json;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use uuid::Uuid;

/// Serializes grant changes with their connection files (a file never holds a replaced token).
static FILES: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Default grant lifetime: 30 days.
pub const DEFAULT_EXPIRY_MS: i64 = 30 * 24 * 3600 * 1000;

/// What Agent access needs from the running service.
#[derive(Clone)]
pub struct AgentSetup {
    pub grants: GrantRegistry,
    /// The state folder (`<state>/agents/<projectId>/<session>.json`).
    pub state_dir: PathBuf,
    /// Canonical path of the running `rho` executable (the MCP launcher).
    pub exe: PathBuf,
    /// The Claude Code and Codex CLIs (`--claude`/`RHO_CLAUDE`, `--codex`/`RHO_CODEX`).
    pub claude: Option<PathBuf>,
    pub codex: Option<PathBuf>,
}

impl AgentSetup {
    /// The private connection file of (project, session).
    pub fn connection_file(&self, project: Uuid, session: &str) -> PathBuf {
        self.state_dir
            .join("agents")
            .join(project.to_string())
            .join(format!("{session}.json"))
    }

    /// The MCP entry an Agent client registers for a connection file.
    pub fn mcp_entry(&self, file: &Path) -> McpEntry {
        McpEntry {
            name: "rho".into(),
            command: self.exe.display().to_string(),
            args: vec!["--mcp".into(), file.display().to_string()],
        }
    }
}

pub(super) fn setup(s: &Services) -> Result<&AgentSetup, ApiError> {
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

/// The project a folder below the root names.
async fn project_by_folder(s: &Services, folder: &str) -> Result<Uuid, ApiError> {
    let rel = Path::new(folder);
    if folder.is_empty()
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
    let wanted = s.root.join(rel);
    let wanted = wanted.canonicalize().unwrap_or(wanted);
    let listing = s.service.send(ListProjects).await.map_err(mailbox)?;
    listing
        .into_iter()
        .find(|p| p.dir == wanted)
        .map(|p| p.id)
        .ok_or_else(|| ApiError::not_found(format!("a registered project in folder {folder:?}")))
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

/// The methods of a grant: the named ones (each known and grantable) or the default.
pub(super) fn methods(
    s: &Services,
    asked: Option<&[String]>,
) -> Result<BTreeSet<String>, ApiError> {
    let chosen: BTreeSet<String> = match asked {
        None => default_methods(&s.selection),
        Some(list) => {
            let mut bad = Vec::new();
            let mut unavailable = Vec::new();
            for name in list {
                match registry::find(name) {
                    Some(op) if catalog::grantable(&op) => {
                        if !catalog::available(&op, &s.selection) {
                            unavailable.push(name.clone());
                        }
                    }
                    _ => bad.push(name.clone()),
                }
            }
            if !bad.is_empty() {
                return Err(ApiError::new(
                    crate::envelope::Code::Invalid,
                    format!("not grantable to an Agent (unknown, not allowed to the agent principal, or never grantable): {}", bad.join(", ")),
                    json!({"field": "methods", "reason": "unknown or not grantable", "methods": bad}),
                ));
            }
            if !unavailable.is_empty() {
                let owners: Vec<&str> = unavailable
                    .iter()
                    .filter_map(|n| registry::find(n).and_then(|o| o.owner))
                    .map(|o| o.name())
                    .collect();
                return Err(ApiError::unavailable(
                    &owners,
                    format!("owners not selected for: {}", unavailable.join(", ")),
                ));
            }
            list.iter().cloned().collect()
        }
    };
    if chosen.is_empty() {
        return Err(ApiError::invalid(
            Some("methods"),
            "a grant needs at least one method",
        ));
    }
    let max = s.limits.layered_grant_limits.max_methods;
    if chosen.len() as u64 > max {
        return Err(ApiError::new(
            crate::envelope::Code::Limit,
            format!(
                "the grant would have {} methods; at most {max} (refused, never cut)",
                chosen.len()
            ),
            json!({"limit": "layeredGrantLimits.maxMethods", "value": max, "requested": chosen.len()}),
        ));
    }
    Ok(chosen)
}

/// Grants (or keeps) access; the reply never carries the token.
pub async fn grant(s: &Services, req: GrantRequest) -> Result<GrantReply, ApiError> {
    let setup = setup(s)?.clone();
    check_session(&req.session)?;
    let project = match (&req.project_id, &req.folder) {
        (Some(id), None) => project_id("projectId", id)?,
        (None, Some(folder)) => project_by_folder(s, folder).await?,
        _ => {
            return Err(ApiError::invalid(
                Some("projectId"),
                "give exactly one of projectId and folder",
            ))
        }
    };
    let (project_name, _) = project_facts(s, project).await?;
    let profile = req
        .profile
        .clone()
        .unwrap_or_else(|| BUSINESS_PROFILE.into());
    if profile != BUSINESS_PROFILE {
        return Err(ApiError::unavailable(
            &[],
            format!("profile {profile:?} is not served by this build (only {BUSINESS_PROFILE})"),
        ));
    }
    let methods = methods(s, req.methods.as_deref())?;
    let now = now_ms();
    let existing = setup
        .grants
        .get(project, &req.session)
        .filter(|g| g.valid_at(now));
    let expires_ms = match &req.expires_at {
        Some(text) => {
            let t = chrono::DateTime::parse_from_rfc3339(text).map_err(|_| {
                ApiError::invalid(
                    Some("expiresAt"),
                    "an RFC 3339 time, e.g. 2026-12-31T00:00:00Z",
                )
            })?;
            let ms = t.timestamp_millis();
            if ms <= now {
                return Err(ApiError::invalid(
                    Some("expiresAt"),
                    "the expiry must be in the future",
                ));
            }
            ms
        }
        None => existing
            .as_ref()
            .map_or(now + DEFAULT_EXPIRY_MS, |g| g.expires_ms),
    };
    let scope = GrantScope {
        methods,
        profile,
        expires_ms,
    };
    let file = setup.connection_file(project, &req.session);
    let session = req.session.clone();
    let url_services = s.url.clone();
    let minted = {
        let setup = setup.clone();
        let file = file.clone();
        actix_web::web::block(move || -> Result<Minted, ApiError> {
            let _files = FILES.lock().unwrap_or_else(|p| p.into_inner());
            let minted = setup
                .grants
                .mint(project, &session, &scope, now, |old| file_holds(&file, old))
                .map_err(ApiError::internal)?;
            if let Minted::New { record, token, .. } = &minted {
                let body = file_body_for(&url_services, record, token);
                if let Err(e) = write_private(&file, &body) {
                    let _ = setup.grants.revoke(project, &session);
                    return Err(ApiError::internal(format!(
                        "writing the Agent connection file: {e}"
                    )));
                }
            }
            Ok(minted)
        })
        .await
        .map_err(ApiError::internal)??
    };
    let (record, reused) = match minted {
        Minted::Kept(r) => (r, true),
        Minted::New { record, .. } => (record, false),
    };
    tracing::info!(project = %project, session = %record.session, methods = record.methods.len(), reused, "Agent grant");
    Ok(GrantReply {
        project_id: project.to_string(),
        project_name,
        session: record.session.clone(),
        profile: record.profile.clone(),
        methods: record.methods.iter().cloned().collect(),
        expires_at: rfc3339(record.expires_ms),
        created_at: rfc3339(record.created_ms),
        connection_file: file.display().to_string(),
        reused,
        mcp: setup.mcp_entry(&file),
    })
}

/// Ends a grant at once and removes its connection file.
pub async fn revoke(s: &Services, project: Uuid, session: &str) -> Result<bool, ApiError> {
    let setup = setup(s)?.clone();
    let file = setup.connection_file(project, session);
    let session = session.to_string();
    actix_web::web::block(move || -> Result<bool, ApiError> {
        let _files = FILES.lock().unwrap_or_else(|p| p.into_inner());
        let old = setup
            .grants
            .revoke(project, &session)
            .map_err(ApiError::internal)?;
        match std::fs::remove_file(&file) {
            Ok(()) => {
                if let Some(dir) = file.parent() {
                    let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => tracing::warn!(file = %file.display(), error = %e, "could not remove a revoked Agent connection file"),
        }
        Ok(old.is_some())
    })
    .await
    .map_err(ApiError::internal)?
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
            async move {
                check_session(&req.session)?;
                let project = project_id("projectId", &req.project_id)?;
                if !revoke(&s, project, &req.session).await? {
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
        },
    )?;

    let s = services.clone();
    table.register(
        spec("session.instructions"),
        move |_ctx: Ctx, req: InstructionsRequest| {
            let s = s.clone();
            async move {
                let setup = setup(&s)?;
                let project = project_id("projectId", &req.project_id)?;
                let session = req.session.unwrap_or_else(|| "claude-code".into());
                check_session(&session)?;
                let (project_name, _) = project_facts(&s, project).await?;
                let file = setup.connection_file(project, &session);
                let granted = setup
                    .grants
                    .get(project, &session)
                    .is_some_and(|g| g.valid_at(now_ms()));
                let conn = setup.state_dir.join("connection.json");
                Ok(InstructionsReply {
                    project_id: project.to_string(),
                    project_name,
                    grant_command: format!(
                        "{} --grant {} --project-id {project} --session {session}",
                        setup.exe.display(),
                        conn.display()
                    ),
                    session,
                    mcp: setup.mcp_entry(&file),
                    granted,
                })
            }
        },
    )?;
    Ok(())
}
