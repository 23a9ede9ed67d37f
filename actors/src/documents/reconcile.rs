//! After a restart: a save that was intended but not confirmed is settled by comparing the disk, never redone.

use super::entity::{DocCommand, DocumentEntity};
use super::files;
use crate::child::{Execute, Query};
use crate::entity::CommandContext;
use crate::project_actor::ProjectActor;
use crate::Principal;
use actix::prelude::*;

/// For each buffer with a pending save: the disk holds the target -> `Saved`; else `SaveAbandoned`.
fn settle_saves(actor: &mut ProjectActor, ctx: &mut Context<ProjectActor>) {
    let dir = actor.dir().to_path_buf();
    for (_, child) in actor.children().all::<DocumentEntity>() {
        let dir = dir.clone();
        let work = async move {
            let pending = child
                .send(Query::<DocumentEntity, _> {
                    read: Box::new(|d: &DocumentEntity| {
                        d.pending_save.clone().map(|p| (p, d.path.clone()))
                    }),
                })
                .await
                .ok()?
                .ok()?
                .reply;
            let (save, path) = pending?;
            let (_, file) = files::target(&dir, &path).ok()?;
            let now = tokio::task::spawn_blocking(move || {
                files::remove_stale_temps(&file);
                files::disk_digest(&file)
            })
            .await
            .ok()?
            .ok()?;
            let command = if now.as_deref() == Some(save.target.as_str()) {
                DocCommand::SaveDone {
                    version: save.version,
                    disk_digest: save.target,
                }
            } else {
                DocCommand::SaveFailed {
                    reason: "Rho stopped before the file was replaced".into(),
                }
            };
            tracing::info!(path = %path, "settling a save interrupted by a restart");
            let ctx = CommandContext {
                principal: Principal::System,
                time_ms: rho_plumbing::time::now_ms(),
                identity: None,
                needs: Vec::new(),
            };
            let _ = child.send(Execute::<DocumentEntity> { command, ctx }).await;
            Some(())
        };
        ctx.spawn(work.into_actor(actor).map(|_, _, _| ()));
    }
}

/// The documents owner's recovery: settle interrupted saves, then start idle eviction (idle
/// buffers leave memory; the journal keeps them).
pub(crate) fn recover(act: &mut ProjectActor, ctx: &mut Context<ProjectActor>) {
    settle_saves(act, ctx);
    let idle = act.config().document_idle;
    let every = (idle / 2).clamp(
        std::time::Duration::from_millis(10),
        std::time::Duration::from_secs(60),
    );
    ctx.run_interval(every, move |act, _| act.evict_idle_documents(idle));
}
