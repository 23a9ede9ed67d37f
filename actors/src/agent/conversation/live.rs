//! The project's live conversation drivers (never journaled): one per conversation, each
//! message handed to its driver exactly once; and the recovery that kills an adapter's process
//! group (or the MCP servers of Rho's own agent) that outlived a crash of Rho.

use super::driver::{self, Control, Port, Setup};
use super::entity::ConversationEntity;
use crate::child::Query;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::collections::{HashMap, HashSet};
use tokio::sync::mpsc::UnboundedSender;
use uuid::Uuid;

struct Driver {
    tx: UnboundedSender<Control>,
    prompted: HashSet<String>,
}

/// The drivers of one project's conversations.
#[derive(Default)]
pub struct LiveConversations {
    drivers: HashMap<Uuid, Driver>,
}

impl LiveConversations {
    /// Hands message `message_id` to the conversation's driver (started if needed) unless it
    /// was handed already; answers whether it was handed now.
    pub fn deliver(
        &mut self,
        id: Uuid,
        message_id: &str,
        text: String,
        history: Option<String>,
        setup: Setup,
        port: std::sync::Arc<dyn Port>,
    ) -> bool {
        if self
            .drivers
            .get(&id)
            .is_some_and(|d| d.prompted.contains(message_id))
        {
            return false;
        }
        let resume = setup.resume.clone();
        let d = self.ensure(id, setup, port);
        d.prompted.insert(message_id.to_string());
        let prompt = Control::Prompt {
            message_id: message_id.to_string(),
            text,
            resume,
            history,
        };
        if d.tx.send(prompt).is_err() {
            tracing::warn!(target: "rho::agent::conversation", conversation = %id, "the driver ended before the prompt");
        }
        true
    }

    /// The conversation's driver, started with `setup` when none runs (or the one that ran
    /// has ended).
    fn ensure(&mut self, id: Uuid, setup: Setup, port: std::sync::Arc<dyn Port>) -> &mut Driver {
        let stale = self.drivers.get(&id).is_some_and(|d| d.tx.is_closed());
        if stale {
            self.drivers.remove(&id);
        }
        self.drivers.entry(id).or_insert_with(|| Driver {
            tx: driver::spawn(setup, port),
            prompted: HashSet::new(),
        })
    }

    /// Sends `control` to the conversation's driver, starting it with `setup` first when none
    /// runs (the palettes of Rho's own agent after a restart, before any message).
    pub fn send_starting(
        &mut self,
        id: Uuid,
        control: Control,
        setup: Setup,
        port: std::sync::Arc<dyn Port>,
    ) -> bool {
        self.ensure(id, setup, port).tx.send(control).is_ok()
    }

    /// Whether a driver runs for the conversation.
    pub fn runs(&self, id: Uuid) -> bool {
        self.drivers.get(&id).is_some_and(|d| !d.tx.is_closed())
    }

    /// Sends `control` to the conversation's driver; `false` when none runs.
    pub fn send(&self, id: Uuid, control: Control) -> bool {
        self.drivers
            .get(&id)
            .is_some_and(|d| d.tx.send(control).is_ok())
    }
}

/// Recovery: an adapter's process group recorded by a conversation that still exists after a
/// crash (Rho was killed; its children were not) is killed. The group is checked to be an ACP
/// adapter's (or a `claude -p` of the `claude-cli` driver) first, so a reused process id is
/// left alone.
pub(crate) fn recover(act: &mut ProjectActor, ctx: &mut Context<ProjectActor>) {
    let children = act.children().all::<ConversationEntity>();
    let work = async move {
        for (_, child) in children {
            let read = Box::new(|e: &ConversationEntity| {
                (e.info.as_ref().and_then(|i| i.pgid), e.servers.clone())
            });
            let Ok(Ok(accepted)) = child
                .send(Query::<ConversationEntity, (Option<i32>, Vec<(i32, String)>)> { read })
                .await
            else {
                continue;
            };
            let (adapter, servers) = accepted.reply;
            if let Some(pgid) = adapter {
                kill_adapter_group(pgid);
            }
            for (pgid, cmdline) in servers {
                kill_server_group(pgid, &cmdline);
            }
        }
    };
    ctx.spawn(work.into_actor(act));
}

fn kill_adapter_group(pgid: i32) {
    let cmdline = std::fs::read(format!("/proc/{pgid}/cmdline")).unwrap_or_default();
    let cmdline = String::from_utf8_lossy(&cmdline);
    let cli = cmdline.contains("claude") && cmdline.contains("\0stream-json\0");
    if !cmdline.contains("@agentclientprotocol") && !cli {
        return;
    }
    tracing::info!(target: "rho::agent::conversation", pgid, "killing an adapter that outlived Rho");
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// An MCP server group of Rho's own agent that outlived Rho: killed when its leader still runs
/// the command line journaled when it started, or when the leader is gone (a group id is not
/// reused while the group has members, so what is left in it is the server's: a grandchild
/// that ignored the closed pipes). A reused process id running something else is left alone.
fn kill_server_group(pgid: i32, cmdline: &str) {
    match super::native::cmdline(pgid) {
        Some(now) if now != cmdline => return,
        // No command line: the leader exited (a zombie no one reaped yet is still that same
        // process, so its id is not reused) or the id is not a process now; anything else
        // without one (a kernel thread) is left alone.
        None if !leader_gone(pgid) => return,
        _ => {}
    }
    tracing::info!(target: "rho::agent::conversation", pgid, "killing an MCP server of Rho's own agent that outlived Rho");
    let _ = nix::sys::signal::killpg(
        nix::unistd::Pid::from_raw(pgid),
        nix::sys::signal::Signal::SIGKILL,
    );
}

/// Whether process `pid` has exited: no such process, or a zombie.
fn leader_gone(pid: i32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Err(_) => true,
        Ok(stat) => stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
    }
}
