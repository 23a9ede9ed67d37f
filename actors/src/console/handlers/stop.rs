//! `console.stop`: journal who asked, SIGTERM the command's process group, SIGKILL it after
//! `console.stopGraceMs` unless it ended (its exit record is journaled by its follower). The
//! request's time is journaled, so after a restart recovery SIGKILLs at the same deadline.

use super::state::{one, LearnCommand};
use crate::console::entity::{CommandRecord, ConsoleEvent, Started};
use crate::console::process;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use nix::sys::signal::Signal;
use rho_kernels::console::files;
use std::path::PathBuf;
use std::time::Duration;

/// SIGKILLs the command's group after `after` unless its exit record appeared first.
pub(crate) fn escalate(dir: PathBuf, started: Started, after: Duration) {
    actix::spawn(async move {
        let deadline = tokio::time::Instant::now() + after;
        while tokio::time::Instant::now() < deadline {
            if files::read_exit(&dir).is_some() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        if files::read_exit(&dir).is_none() {
            process::signal_group(&started, Signal::SIGKILL);
        }
    });
}

/// How long until the SIGKILL of a stop journaled at `requested_at_ms` is due (zero once past).
pub(crate) fn grace_left(requested_at_ms: i64, grace: Duration) -> Duration {
    let due = requested_at_ms.saturating_add(grace.as_millis() as i64);
    Duration::from_millis(due.saturating_sub(rho_plumbing::time::now_ms()).max(0) as u64)
}

#[derive(Message)]
#[rtype(result = "Result<CommandRecord, ActorError>")]
pub struct StopConsole {
    pub command_id: String,
    pub by: String,
}

impl Handler<StopConsole> for ProjectActor {
    type Result = ResponseFuture<Result<CommandRecord, ActorError>>;

    fn handle(&mut self, msg: StopConsole, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let dir = files::record_dir(self.dir(), &msg.command_id);
        let grace = Duration::from_millis(self.config_limits().console.stop_grace_ms);
        Box::pin(async move {
            let c = one(&me, &msg.command_id).await?;
            if !c.state.is_live() {
                return Ok(c);
            }
            let after = me
                .send(LearnCommand {
                    event: ConsoleEvent::StopRequested {
                        command_id: c.command_id.clone(),
                        by: msg.by,
                    },
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            if let Some(started) = after.started.clone() {
                process::signal_group(&started, Signal::SIGTERM);
                escalate(dir, started, grace);
            }
            Ok(after)
        })
    }
}
