//! The grant lifecycle: `GrantAccess` (mint, keep or replace, then the connection file) and `RevokeAccess` (refused at once, file removed), each atomic in the actor.

use super::error::AccessError;
use super::messages::{GrantAccess, Granted, ProjectRef, RevokeAccess};
use super::{blocking, files, listing, AccessConfig, AgentAccess, AgentSetup};
use crate::agent::catalog::{self, default_methods};
use crate::agent::grants::{GrantScope, Minted, BUSINESS_PROFILE, DEFAULT_EXPIRY_MS};
use crate::contract::registry;
use crate::owners::Selection;
use actix::prelude::*;
use std::collections::BTreeSet;
use std::path::Path;
use uuid::Uuid;

/// The methods of a grant: the named ones (each known and grantable) or the default.
fn methods(
    selection: &Selection,
    max: u64,
    asked: Option<&[String]>,
) -> Result<BTreeSet<String>, AccessError> {
    let chosen: BTreeSet<String> = match asked {
        None => default_methods(selection),
        Some(list) => {
            let mut bad = Vec::new();
            let mut unavailable = Vec::new();
            for name in list {
                match registry::find(name) {
                    Some(op) if catalog::grantable(&op) => {
                        if !catalog::available(&op, selection) {
                            unavailable.push(name.clone());
                        }
                    }
                    _ => bad.push(name.clone()),
                }
            }
            if !bad.is_empty() {
                return Err(AccessError::NotGrantable { methods: bad });
            }
            if !unavailable.is_empty() {
                let owners = unavailable
                    .iter()
                    .filter_map(|n| registry::find(n).and_then(|o| o.owner))
                    .map(|o| o.name().to_string())
                    .collect();
                return Err(AccessError::OwnersUnselected {
                    owners,
                    methods: unavailable,
                });
            }
            list.iter().cloned().collect()
        }
    };
    if chosen.is_empty() {
        return Err(AccessError::Invalid {
            field: "methods",
            reason: "a grant needs at least one method".into(),
        });
    }
    if chosen.len() as u64 > max {
        return Err(AccessError::TooManyMethods {
            requested: chosen.len(),
            max,
        });
    }
    Ok(chosen)
}

/// The expiry a grant asks for: the given RFC 3339 time (in the future), else the current one, else 30 days.
fn expiry(text: Option<&str>, now: i64, current: Option<i64>) -> Result<i64, AccessError> {
    let Some(text) = text else {
        return Ok(current.unwrap_or(now + DEFAULT_EXPIRY_MS));
    };
    let t = chrono::DateTime::parse_from_rfc3339(text).map_err(|_| AccessError::Invalid {
        field: "expiresAt",
        reason: "an RFC 3339 time, e.g. 2026-12-31T00:00:00Z".into(),
    })?;
    let ms = t.timestamp_millis();
    if ms <= now {
        return Err(AccessError::Invalid {
            field: "expiresAt",
            reason: "the expiry must be in the future".into(),
        });
    }
    Ok(ms)
}

/// The project a grant names, and its name.
async fn project(config: &AccessConfig, named: &ProjectRef) -> Result<(Uuid, String), AccessError> {
    let projects = listing(&config.service).await?;
    let id = match named {
        ProjectRef::Id(id) => *id,
        ProjectRef::Folder(folder) => {
            let wanted = config.root.join(Path::new(folder));
            let wanted = wanted.canonicalize().unwrap_or(wanted);
            projects
                .iter()
                .find(|p| p.dir == wanted)
                .map(|p| p.id)
                .ok_or_else(|| AccessError::NotFound {
                    what: format!("a registered project in folder {folder:?}"),
                })?
        }
    };
    let name = projects
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| p.name)
        .ok_or_else(|| AccessError::NotFound {
            what: "project".into(),
        })?;
    Ok((id, name))
}

/// Steps of a grant: 1. the project, 2. the profile, 3. the methods, 4. the expiry, 5. mint
/// and write the connection file on a blocking thread (a failed write revokes the new grant).
async fn grant(
    setup: AgentSetup,
    config: AccessConfig,
    msg: GrantAccess,
) -> Result<Granted, AccessError> {
    let (project, project_name) = project(&config, &msg.project).await?;
    let profile = msg.profile.unwrap_or_else(|| BUSINESS_PROFILE.into());
    if profile != BUSINESS_PROFILE {
        return Err(AccessError::Profile { profile });
    }
    let methods = methods(
        &config.selection,
        config.max_methods,
        msg.methods.as_deref(),
    )?;
    let now = chrono::Utc::now().timestamp_millis();
    let current = setup
        .grants
        .get(project, &msg.session)
        .filter(|g| g.valid_at(now))
        .map(|g| g.expires_ms);
    let scope = GrantScope {
        methods,
        profile,
        expires_ms: expiry(msg.expires_at.as_deref(), now, current)?,
    };
    let file = setup.connection_file(project, &msg.session);
    let minted = {
        let (grants, file, session, url) = (
            setup.grants.clone(),
            file.clone(),
            msg.session.clone(),
            config.url.clone(),
        );
        blocking(move || {
            let minted = grants
                .mint(project, &session, &scope, now, |old| {
                    files::holds(&file, old)
                })
                .map_err(|e| AccessError::Internal(e.to_string()))?;
            if let Minted::New { record, token, .. } = &minted {
                if let Err(e) = files::write_private(&file, &files::body(&url, record, token)) {
                    let _ = grants.revoke(project, &session);
                    return Err(AccessError::Internal(format!(
                        "writing the Agent connection file: {e}"
                    )));
                }
            }
            Ok(minted)
        })
        .await?
    };
    let (record, reused) = match minted {
        Minted::Kept(r) => (r, true),
        Minted::New { record, .. } => (record, false),
    };
    tracing::info!(project = %project, session = %record.session, methods = record.methods.len(), reused, "Agent grant");
    Ok(Granted {
        project_id: project,
        project_name,
        record,
        reused,
        mcp: setup.mcp_entry(&file),
        connection_file: file,
    })
}

impl Handler<GrantAccess> for AgentAccess {
    type Result = AtomicResponse<Self, Result<Granted, AccessError>>;

    fn handle(&mut self, msg: GrantAccess, _: &mut Context<Self>) -> Self::Result {
        let events = self.config.events.clone();
        let (setup, config) = (self.setup.clone(), self.config.clone());
        let work = async move {
            let granted = grant(setup, config, msg).await?;
            super::announce::grant_changed(
                events.as_ref(),
                granted.project_id,
                &granted.record.session,
                if granted.reused { "kept" } else { "granted" },
            );
            Ok(granted)
        };
        AtomicResponse::new(Box::pin(fut::wrap_future(work)))
    }
}

impl Handler<RevokeAccess> for AgentAccess {
    type Result = AtomicResponse<Self, Result<bool, AccessError>>;

    fn handle(&mut self, msg: RevokeAccess, _: &mut Context<Self>) -> Self::Result {
        let file = self.setup.connection_file(msg.project, &msg.session);
        let grants = self.setup.grants.clone();
        let (project, session) = (msg.project, msg.session.clone());
        let work = blocking(move || {
            let old = grants
                .revoke(msg.project, &msg.session)
                .map_err(|e| AccessError::Internal(e.to_string()))?;
            files::remove(&file);
            Ok(old.is_some())
        });
        let events = self.config.events.clone();
        let work = async move {
            let revoked = work.await?;
            if revoked {
                super::announce::grant_changed(events.as_ref(), project, &session, "revoked");
            }
            Ok(revoked)
        };
        AtomicResponse::new(Box::pin(fut::wrap_future(work)))
    }
}
