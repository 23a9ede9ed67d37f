//! The console entity (one per project): every command record and every fact learned about it,
//! journaled. Output bytes are not here: they live in the guard's files (`rho_kernels::console`).
//!
//! Nothing here spawns or signals a process.

use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Where a command stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CommandState {
    /// Accepted; its guard is being started.
    Starting,
    Running,
    /// Still alive after a restart of the service (and followed again).
    Continuing,
    Exited,
    /// Its guard vanished without an exit record, or it never started.
    Unknown,
}

impl CommandState {
    pub fn is_live(self) -> bool {
        matches!(
            self,
            CommandState::Starting | CommandState::Running | CommandState::Continuing
        )
    }
}

/// The processes of a started command (from its guard record).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Started {
    pub pid: i32,
    pub pid_start: u64,
    pub guard_pid: i32,
    pub guard_start: u64,
    pub started_at_ms: i64,
}

/// How a command ended and how much it wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ended {
    pub exit_code: Option<i32>,
    pub signal: Option<i32>,
    pub ended_at_ms: i64,
    pub stdout_bytes: u64,
    pub stderr_bytes: u64,
    pub omitted_bytes: u64,
    pub error: Option<String>,
}

/// One command and everything known about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CommandRecord {
    pub command_id: String,
    pub change_id: String,
    pub text: String,
    /// Project-relative folder (`""`: the project folder).
    pub cwd: String,
    pub by: String,
    pub accepted_at_ms: i64,
    pub state: CommandState,
    pub started: Option<Started>,
    pub stop: Option<(String, i64)>,
    pub ended: Option<Ended>,
    pub note: Option<String>,
}

/// Events of the console entity. Variants are only ever appended.
// The accepted record is journaled once; boxing buys nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConsoleEvent {
    Accepted {
        record: CommandRecord,
    },
    Started {
        command_id: String,
        started: Started,
    },
    Continuing {
        command_id: String,
    },
    StopRequested {
        command_id: String,
        by: String,
    },
    Ended {
        command_id: String,
        ended: Ended,
    },
    Unknown {
        command_id: String,
        reason: String,
    },
    /// Made room under `console.maxRecords` (its files are removed after).
    Evicted {
        command_id: String,
    },
}

impl ConsoleEvent {
    pub fn command_id(&self) -> &str {
        match self {
            ConsoleEvent::Accepted { record } => &record.command_id,
            ConsoleEvent::Started { command_id, .. }
            | ConsoleEvent::Continuing { command_id }
            | ConsoleEvent::StopRequested { command_id, .. }
            | ConsoleEvent::Ended { command_id, .. }
            | ConsoleEvent::Unknown { command_id, .. }
            | ConsoleEvent::Evicted { command_id } => command_id,
        }
    }
}

impl EntityEvent for ConsoleEvent {
    fn kind(&self) -> &'static str {
        match self {
            ConsoleEvent::Accepted { .. } => "console.accepted",
            ConsoleEvent::Started { .. } => "console.started",
            ConsoleEvent::Continuing { .. } => "console.continuing",
            ConsoleEvent::StopRequested { .. } => "console.stop-requested",
            ConsoleEvent::Ended { .. } => "console.ended",
            ConsoleEvent::Unknown { .. } => "console.unknown",
            ConsoleEvent::Evicted { .. } => "console.evicted",
        }
    }

    fn summary(&self) -> String {
        let id = self.command_id();
        match self {
            ConsoleEvent::Accepted { record } => {
                format!(
                    "command {id} accepted from {} ({} bytes of text)",
                    record.by,
                    record.text.len()
                )
            }
            ConsoleEvent::Started { started, .. } => {
                format!("command {id} started as pid {}", started.pid)
            }
            ConsoleEvent::StopRequested { by, .. } => {
                format!("command {id} stop requested by {by}")
            }
            ConsoleEvent::Ended { ended, .. } => format!(
                "command {id} ended (code {:?}, signal {:?})",
                ended.exit_code, ended.signal
            ),
            ConsoleEvent::Unknown { reason, .. } => format!("command {id} unknown: {reason}"),
            other => format!("{} {id}", other.kind()),
        }
    }
}

/// Every retained command of one project, in the order accepted.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConsoleEntity {
    pub commands: BTreeMap<String, CommandRecord>,
    pub order: Vec<String>,
    identities: IdentityTable<AcceptReply>,
}

/// What accepting a command answers: the record and the commands evicted to make room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AcceptReply {
    pub record: CommandRecord,
    pub evicted: Vec<String>,
}

/// Commands of the console entity.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum ConsoleCommand {
    Accept {
        record: Box<CommandRecord>,
        max_running: u64,
        max_records: u64,
    },
    /// Record facts about one command, in order (each journaled only when it changes the
    /// record), as one journal batch.
    Learn { events: Vec<ConsoleEvent> },
}

impl ConsoleEntity {
    /// A retained command, or `not_found`.
    pub fn get(&self, id: &str) -> Result<&CommandRecord, ActorError> {
        self.commands.get(id).ok_or_else(|| ActorError::NotFound {
            what: "command".into(),
        })
    }

    /// Commands in the order accepted.
    pub fn list(&self) -> Vec<CommandRecord> {
        self.order
            .iter()
            .filter_map(|id| self.commands.get(id).cloned())
            .collect()
    }

    fn running(&self) -> u64 {
        self.commands.values().filter(|c| c.state.is_live()).count() as u64
    }

    /// Whether `event` would change anything.
    fn changes(&self, event: &ConsoleEvent) -> Result<bool, ActorError> {
        let c = self.get(event.command_id())?;
        Ok(match event {
            ConsoleEvent::Accepted { .. } | ConsoleEvent::Evicted { .. } => false,
            ConsoleEvent::Started { .. } => c.state == CommandState::Starting,
            ConsoleEvent::Continuing { .. } => {
                matches!(c.state, CommandState::Running | CommandState::Starting)
            }
            ConsoleEvent::StopRequested { .. } => c.state.is_live() && c.stop.is_none(),
            ConsoleEvent::Ended { .. } | ConsoleEvent::Unknown { .. } => c.state.is_live(),
        })
    }
}

fn limit(key: &str, value: u64) -> ActorError {
    ActorError::Limit {
        limit: key.into(),
        value,
    }
}

impl Entity for ConsoleEntity {
    const KIND: &'static str = "console";
    type Event = ConsoleEvent;
    type Command = ConsoleCommand;
    type Reply = AcceptReply;

    fn apply(&mut self, event: &ConsoleEvent, meta: &EventMeta) {
        let id = event.command_id().to_string();
        match event {
            ConsoleEvent::Accepted { record } => {
                self.order.push(id.clone());
                self.commands.insert(id, record.clone());
                return;
            }
            ConsoleEvent::Evicted { .. } => {
                self.commands.remove(&id);
                self.order.retain(|o| *o != id);
                return;
            }
            _ => {}
        }
        let Some(c) = self.commands.get_mut(&id) else {
            return;
        };
        match event {
            ConsoleEvent::Accepted { .. } | ConsoleEvent::Evicted { .. } => {}
            ConsoleEvent::Started { started, .. } => {
                c.started = Some(started.clone());
                if c.state == CommandState::Starting {
                    c.state = CommandState::Running;
                }
            }
            ConsoleEvent::Continuing { .. } => c.state = CommandState::Continuing,
            ConsoleEvent::StopRequested { by, .. } => {
                c.stop.get_or_insert((by.clone(), meta.time_ms));
            }
            ConsoleEvent::Ended { ended, .. } => {
                c.ended = Some(ended.clone());
                c.state = CommandState::Exited;
            }
            ConsoleEvent::Unknown { reason, .. } => {
                c.note = Some(reason.clone());
                c.state = CommandState::Unknown;
            }
        }
    }

    fn decide(
        &self,
        command: &ConsoleCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<ConsoleEvent, AcceptReply>, ActorError> {
        match command {
            ConsoleCommand::Accept {
                record,
                max_running,
                max_records,
            } => {
                if self.commands.contains_key(&record.command_id) {
                    return Err(ActorError::conflict("that command id is taken"));
                }
                if self.running() >= *max_running {
                    return Err(limit("console.maxRunning", *max_running));
                }
                let mut events = Vec::new();
                let mut evicted = Vec::new();
                let mut left = self.order.len() as u64;
                let mut finished = self
                    .order
                    .iter()
                    .filter(|id| self.commands.get(*id).is_some_and(|c| !c.state.is_live()));
                while left >= *max_records {
                    let Some(old) = finished.next() else {
                        return Err(limit("console.maxRecords", *max_records));
                    };
                    events.push(ConsoleEvent::Evicted {
                        command_id: old.clone(),
                    });
                    evicted.push(old.clone());
                    left -= 1;
                }
                events.push(ConsoleEvent::Accepted {
                    record: (**record).clone(),
                });
                Ok(Decision {
                    events,
                    reply: AcceptReply {
                        record: (**record).clone(),
                        evicted,
                    },
                })
            }
            ConsoleCommand::Learn { events } => {
                let Some(first) = events.first() else {
                    return Err(ActorError::internal("nothing to learn"));
                };
                let id = first.command_id().to_string();
                // Only the record learned about is copied, not every record.
                let mut after = ConsoleEntity {
                    commands: BTreeMap::from([(id.clone(), self.get(&id)?.clone())]),
                    order: vec![id.clone()],
                    identities: IdentityTable::default(),
                };
                let meta = EventMeta {
                    seq: 0,
                    entity_seq: 0,
                    time_ms: rho_plumbing::time::now_ms(),
                    principal: String::new(),
                };
                let mut kept = Vec::new();
                for event in events {
                    if event.command_id() != id {
                        return Err(ActorError::internal("facts about two commands at once"));
                    }
                    if after.changes(event)? {
                        after.apply(event, &meta);
                        kept.push(event.clone());
                    }
                }
                let record = after.get(&id)?.clone();
                Ok(Decision {
                    events: kept,
                    reply: AcceptReply {
                        record,
                        evicted: Vec::new(),
                    },
                })
            }
        }
    }

    fn identities(&self) -> &IdentityTable<AcceptReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<AcceptReply> {
        &mut self.identities
    }
}
