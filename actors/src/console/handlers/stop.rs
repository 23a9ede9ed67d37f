//! `console.stop`: journal who asked, SIGTERM the command's process group, SIGKILL it after
//! `console.stopGraceMs` unless it ended (its exit record is journaled by its follower).

use super::state::{one, LearnCommand};
use crate::console::entity::{CommandRecord, ConsoleEvent};
use crate::console::process;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use nix::sys::signal::Signal;
use rho_kernels::console::files;

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
        let grace = std::time::Duration::from_millis(self.config_limits().console.stop_grace_ms);
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
                actix::spawn(async move {
                    let deadline = tokio::time::Instant::now() + grace;
                    while tokio::time::Instant::now() < deadline {
                        if files::read_exit(&dir).is_some() {
                            return;
                        }
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    }
                    if files::read_exit(&dir).is_none() {
                        process::signal_group(&started, Signal::SIGKILL);
                    }
                });
            }
            Ok(after)
        })
    }
}
