//! `console.run`: check the folder, journal the command (identity, limits, eviction), start its
//! guard exactly once (the record folder is created once), journal its start and follow it.

use super::state::{one, AcceptCommand, LearnEvents};
use crate::console::entity::{CommandRecord, CommandState, ConsoleEvent};
use crate::console::{follow, process};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::limits::ConsoleLimits;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::console::files;
use std::path::{Path, PathBuf};

/// Run `text` in `cwd` (project-relative) under the caller identity in `ctx`.
#[derive(Message)]
#[rtype(result = "Result<CommandRecord, ActorError>")]
pub struct RunConsole {
    pub change_id: String,
    pub text: String,
    pub cwd: Option<String>,
    pub ctx: CommandContext,
}

/// The folder a command runs in: inside the project, not under `.rho/`, no `..`, no symlink
/// that leaves it; returns (canonical folder, project-relative form).
pub fn resolve_cwd(project: &Path, cwd: Option<&str>) -> Result<(PathBuf, String), ActorError> {
    let bad = |why: &str| ActorError::invalid("cwd", why.to_string());
    let root = project
        .canonicalize()
        .map_err(|e| ActorError::internal(format!("the project folder: {e}")))?;
    let rel = cwd.unwrap_or("").trim_end_matches('/');
    if rel.is_empty() || rel == "." {
        return Ok((root, String::new()));
    }
    let p = Path::new(rel);
    if p.is_absolute() {
        return Err(bad("cwd is a project-relative folder"));
    }
    for c in p.components() {
        match c {
            std::path::Component::Normal(s) if s != ".rho" => {}
            std::path::Component::CurDir => {}
            _ => return Err(bad("cwd may not name .., .rho or leave the project")),
        }
    }
    let full = root
        .join(p)
        .canonicalize()
        .map_err(|_| bad("cwd is not an existing folder of the project"))?;
    if !full.starts_with(&root) || full.starts_with(root.join(".rho")) {
        return Err(bad("cwd leaves the project (a symlink)"));
    }
    if !full.is_dir() {
        return Err(bad("cwd is not a folder"));
    }
    Ok((full, rel.to_string()))
}

/// Creates the record folder `dir` and starts its guard, which waits for go. `Ok(None)`: the
/// folder exists, so another caller starts (or started) this command: exactly once.
fn prepare(
    dir: &Path,
    cwd: &Path,
    text: &str,
    limits: &ConsoleLimits,
) -> Result<Option<process::Prepared>, ActorError> {
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| ActorError::internal(format!("the console folder: {e}")))?;
    }
    if std::fs::create_dir(dir).is_err() {
        return Ok(None);
    }
    process::prepare_guard(dir, cwd, text, limits).map(Some)
}

impl Handler<RunConsole> for ProjectActor {
    type Result = ResponseFuture<Result<CommandRecord, ActorError>>;

    fn handle(&mut self, msg: RunConsole, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let project = self.dir().to_path_buf();
        let limits = self.config_limits().console.clone();
        let followed = self.service_state().console.clone();
        Box::pin(async move {
            let (cwd, rel) = resolve_cwd(&project, msg.cwd.as_deref())?;
            let record = CommandRecord {
                command_id: uuid::Uuid::new_v4().to_string(),
                change_id: msg.change_id,
                text: msg.text,
                cwd: rel,
                by: msg.ctx.principal.to_string(),
                accepted_at_ms: msg.ctx.time_ms,
                state: CommandState::Starting,
                started: None,
                stop: None,
                ended: None,
                note: None,
            };
            // The guard of a new record gets ready (its exec, its session, its output file) while
            // the record is made durable; it runs the command only when told to go (decision 0608).
            let fresh = record.command_id.clone();
            let fresh_dir = files::record_dir(&project, &fresh);
            let ahead = {
                let (d, c, t, l) = (
                    fresh_dir.clone(),
                    cwd.clone(),
                    record.text.clone(),
                    limits.clone(),
                );
                tokio::task::spawn_blocking(move || prepare(&d, &c, &t, &l))
            };
            let accept = me.send(AcceptCommand {
                record: Box::new(record),
                ctx: msg.ctx,
            });
            let (ahead, accepted) = tokio::join!(ahead, accept);
            let ahead = ahead.unwrap_or_else(|e| Err(ActorError::internal(e.to_string())));
            let accepted = match accepted
                .map_err(|e| ActorError::internal(e.to_string()))
                .and_then(|r| r)
            {
                Ok(a) => a,
                Err(e) => {
                    if let Ok(Some(p)) = ahead {
                        p.cancel(Some(fresh_dir));
                    }
                    return Err(e);
                }
            };
            for old in &accepted.evicted {
                let _ = std::fs::remove_dir_all(files::record_dir(&project, old));
            }
            let id = accepted.record.command_id.clone();
            let (current, prepared) = if id == fresh {
                (accepted.record, Some(ahead))
            } else {
                // The same changeId named an earlier record: this request's guard is not needed.
                if let Ok(Some(p)) = ahead {
                    p.cancel(Some(fresh_dir));
                }
                match one(&me, &id).await {
                    Ok(c) => (c, None),
                    Err(ActorError::NotFound { .. }) => return Err(ActorError::Expired {
                        reason:
                            "this changeId's command record was evicted under console.maxRecords"
                                .into(),
                    }),
                    Err(e) => return Err(e),
                }
            };
            let dir = files::record_dir(&project, &id);
            if current.state != CommandState::Starting {
                if let Some(Ok(Some(p))) = prepared {
                    p.cancel(Some(dir));
                }
                return Ok(current);
            }
            let prepared = match prepared {
                Some(ready) => ready,
                None => {
                    // An earlier record still starting: exactly once, only the caller that
                    // creates its folder starts its guard.
                    let (d, c, t, l) = (
                        dir.clone(),
                        cwd.clone(),
                        current.text.clone(),
                        limits.clone(),
                    );
                    tokio::task::spawn_blocking(move || prepare(&d, &c, &t, &l))
                        .await
                        .map_err(|e| ActorError::internal(e.to_string()))?
                }
            };
            let prepared = match prepared {
                Ok(Some(p)) => Ok(p),
                Ok(None) => return Ok(current),
                Err(e) => Err(e),
            };
            let d = dir.clone();
            let outcome = match prepared {
                Ok(p) => tokio::task::spawn_blocking(move || p.go(&d))
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))?,
                Err(e) => Err(e),
            };
            let (outcome, guard_ended) = match outcome {
                Ok((o, g)) => (Ok(o), Some(g)),
                Err(e) => (Err(e), None),
            };
            let events = match outcome {
                Ok(launch) => {
                    let started = launch.started.map(|started| ConsoleEvent::Started {
                        command_id: id.clone(),
                        started,
                    });
                    let ended = launch.ended.map(|ended| ConsoleEvent::Ended {
                        command_id: id.clone(),
                        ended,
                    });
                    started.into_iter().chain(ended).collect()
                }
                Err(e) => vec![ConsoleEvent::Unknown {
                    command_id: id.clone(),
                    reason: e.to_string(),
                }],
            };
            // A start and an end learned together are one durable write.
            let after = me
                .send(LearnEvents { events })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            if after.state == CommandState::Running {
                follow::follow(me, project, after.clone(), &followed, guard_ended);
            }
            Ok(after)
        })
    }
}
