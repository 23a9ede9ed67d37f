//! The console's recovery after replay: a command that was live reads `continuing` when its
//! guard is still the process that started it (pid and start time) and is followed again;
//! one that ended meanwhile gets its exit record; one whose guard vanished reads `unknown`.
//!
//! A stop requested before the restart gets its SIGKILL at the journaled request time plus the
//! `console.stopGraceMs` in force now (decision 0606). Nothing runs again.

use super::entity::{CommandState, ConsoleEvent};
use super::handlers::state::{LearnCommand, ReadCommands};
use super::handlers::stop;
use super::{follow, process};
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_kernels::console::files;
use std::time::Duration;

#[derive(Message)]
#[rtype(result = "()")]
pub struct RecoverConsole;

impl Handler<RecoverConsole> for ProjectActor {
    type Result = ResponseFuture<()>;

    fn handle(&mut self, _: RecoverConsole, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let project = self.dir().to_path_buf();
        let followed = self.service_state().console.clone();
        let grace = Duration::from_millis(self.config_limits().console.stop_grace_ms);
        Box::pin(async move {
            let Ok(Ok(commands)) = me.send(ReadCommands { command_id: None }).await else {
                return;
            };
            for c in commands.into_iter().filter(|c| c.state.is_live()) {
                let id = c.command_id.clone();
                let dir = files::record_dir(&project, &id);
                let mut events = Vec::new();
                let started = c.started.clone().or_else(|| {
                    let g = files::read_guard(&dir)?;
                    let s = process::started(&g);
                    events.push(ConsoleEvent::Started {
                        command_id: id.clone(),
                        started: s.clone(),
                    });
                    Some(s)
                });
                if let Some(e) = files::read_exit(&dir) {
                    events.push(ConsoleEvent::Ended {
                        command_id: id.clone(),
                        ended: process::ended(&e),
                    });
                } else if started.as_ref().is_some_and(process::guard_alive) {
                    events.push(ConsoleEvent::Continuing {
                        command_id: id.clone(),
                    });
                } else {
                    events.push(ConsoleEvent::Unknown {
                        command_id: id.clone(),
                        reason: "no guard of it was alive when Rho started again".into(),
                    });
                }
                let mut last = None;
                for event in events {
                    if let Ok(Ok(after)) = me.send(LearnCommand { event }).await {
                        last = Some(after);
                    }
                }
                if let Some(after) = last.filter(|a| a.state == CommandState::Continuing) {
                    // A stop asked before the restart still ends in a SIGKILL at its deadline.
                    if let (Some((_, at)), Some(s)) = (&after.stop, &after.started) {
                        stop::escalate(dir.clone(), s.clone(), stop::grace_left(*at, grace));
                    }
                    follow::follow(me.clone(), project.clone(), after, &followed, None);
                }
            }
        })
    }
}

/// Owner console's recover hook (a self-message, so the hook returns at once).
pub(crate) fn recover(_: &mut ProjectActor, ctx: &mut Context<ProjectActor>) {
    ctx.notify(RecoverConsole);
}
