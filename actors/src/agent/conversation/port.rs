//! What a conversation's driver asks of its project ([`Port`]): journal facts, keep the files a
//! message kept (each captured into Files' immutable store, or its digest when Files is not
//! selected) and reload the open buffers whose files the Agent wrote. All attributed to the
//! conversation's own Agent principal.

use super::driver::{Answer, Port};
use super::entity::KeptFile;
use crate::documents::handlers::ReloadBuffers;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::files::handlers::PutResource;
use crate::files::{FilesError, PutBounds};
use crate::owners::Owner;
use crate::project_actor::ProjectActor;
use crate::Principal;
use actix::prelude::*;
use std::path::PathBuf;
use uuid::Uuid;

/// The driver's facts about a conversation (the project actor journals them: `handlers.rs`).
#[derive(Message)]
#[rtype(result = "Result<(), ActorError>")]
pub struct LearnConversation {
    pub conversation_id: Uuid,
    pub events: Vec<super::entity::ConversationEvent>,
}

/// The port of one conversation in the service.
pub struct ServicePort {
    pub me: Addr<ProjectActor>,
    pub conversation_id: Uuid,
    /// `agent:conversation-<12 hex>`, the conversation's grant.
    pub principal: Principal,
    pub dir: PathBuf,
    /// `resources.maxFileBytes`, and the resources bounds a capture checks.
    pub max_file_bytes: u64,
    pub bounds: PutBounds,
    /// Whether Files is selected (else a kept file is its digest only).
    pub files: bool,
}

/// The principal of a conversation's grant (`conversation-<first 12 hex of its id>`).
pub fn principal(conversation_id: Uuid) -> Principal {
    Principal::Agent(format!(
        "conversation-{}",
        &conversation_id.simple().to_string()[..12]
    ))
}

fn why(e: FilesError) -> String {
    match e {
        FilesError::Actor(ActorError::Limit { limit, .. }) => limit,
        other => other.to_string(),
    }
}

/// The digest of a project file read here (Files not selected): `(sha256, bytes)`.
fn digest_of(dir: &std::path::Path, path: &str, max: u64) -> Result<(String, u64), String> {
    let file = crate::paths::resolve_existing(dir, "path", path).map_err(|e| e.to_string())?;
    let meta = std::fs::metadata(&file).map_err(|e| e.to_string())?;
    if meta.len() > max {
        return Err("resources.maxFileBytes".into());
    }
    let bytes = std::fs::read(&file).map_err(|e| e.to_string())?;
    Ok((rho_plumbing::sha256_hex(&bytes), bytes.len() as u64))
}

impl Port for ServicePort {
    fn learn(&self, events: Vec<super::entity::ConversationEvent>) -> Answer<bool> {
        let me = self.me.clone();
        let conversation_id = self.conversation_id;
        Box::pin(async move {
            match me
                .send(LearnConversation {
                    conversation_id,
                    events,
                })
                .await
            {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    tracing::warn!(target: "rho::agent::conversation", error = %e, "a conversation fact was not journaled");
                    true
                }
                Err(_) => false,
            }
        })
    }

    fn keep(&self, paths: Vec<String>) -> Answer<Vec<Result<KeptFile, (String, String)>>> {
        let me = self.me.clone();
        let (principal, dir, max, bounds, files) = (
            self.principal.clone(),
            self.dir.clone(),
            self.max_file_bytes,
            self.bounds,
            self.files,
        );
        Box::pin(async move {
            let mut out = Vec::new();
            for path in paths {
                if !files {
                    let (d, p) = (dir.clone(), path.clone());
                    let read = tokio::task::spawn_blocking(move || digest_of(&d, &p, max)).await;
                    out.push(match read {
                        Ok(Ok((digest, bytes))) => Ok(KeptFile {
                            path,
                            digest,
                            bytes,
                            resource: None,
                        }),
                        Ok(Err(e)) => Err((path, e)),
                        Err(e) => Err((path, e.to_string())),
                    });
                    continue;
                }
                let mut ctx = CommandContext::now(principal.clone());
                ctx.needs = vec![Owner::Files];
                let put = PutResource {
                    path: path.clone(),
                    declared: None,
                    capture: true,
                    max_file_bytes: max,
                    bounds,
                    ctx,
                    operation_id: None,
                };
                out.push(match me.send(put).await {
                    Ok(Ok(rec)) => Ok(KeptFile {
                        path,
                        digest: rec.facts.sha256.clone(),
                        bytes: rec.facts.bytes,
                        resource: Some((rec.id, rec.version)),
                    }),
                    Ok(Err(e)) => Err((path, why(e))),
                    Err(e) => Err((path, e.to_string())),
                });
            }
            out
        })
    }

    fn reload(&self) -> Answer<()> {
        let me = self.me.clone();
        let principal = self.principal.clone();
        Box::pin(async move {
            if let Ok(Err(e)) = me.send(ReloadBuffers { principal }).await {
                tracing::warn!(target: "rho::agent::conversation", error = %e, "open buffers were not reloaded");
            }
        })
    }
}
