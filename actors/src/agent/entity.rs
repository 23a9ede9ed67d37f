//! The agent owner's per-project entity: the bounded activity record of Agent calls and the external bindings, journaled.

use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, VecDeque};
use uuid::Uuid;

/// One recorded Agent call: never its inputs, never a token.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Activity {
    /// Per project, from 1; set when recorded.
    pub seq: u64,
    pub time_ms: i64,
    /// The Agent session (`agent:<session>` is the principal).
    pub session: String,
    pub method: String,
    /// `ok` or `refused`.
    pub outcome: String,
    /// The refusal's wire code (`forbidden`, `stale`, `invalid`, ...), when refused.
    pub code: Option<String>,
    /// `service` (the edge saw the call) or `adapter` (the MCP adapter refused it and reported it).
    pub source: String,
    /// Ids named by the request and the reply (`documentId`, `changeId`, ...).
    pub ids: BTreeMap<String, String>,
}

/// The latest recorded call of one session (kept whatever the eviction).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Latest {
    pub seq: u64,
    pub time_ms: i64,
    pub method: String,
    pub outcome: String,
    pub code: Option<String>,
}

/// One external binding: an Agent client attached to the project under a session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Binding {
    pub id: Uuid,
    pub label: String,
    /// e.g. `claude-code`, `codex`, `mcp`.
    pub client: String,
    pub session: String,
    pub principal: String,
    pub opened_ms: i64,
    pub closed_ms: Option<i64>,
}

/// Events of the agent entity. Variants are only ever appended (their index is the wire tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AgentEvent {
    /// One call recorded; the oldest records beyond `keep` are evicted by the fold.
    ActivityRecorded {
        activity: Activity,
        keep: u64,
    },
    /// A binding opened; closed bindings beyond `keep` are dropped by the fold, oldest first.
    BindingOpened {
        binding: Binding,
        keep: u64,
    },
    BindingClosed {
        id: Uuid,
        time_ms: i64,
    },
}

impl EntityEvent for AgentEvent {
    fn kind(&self) -> &'static str {
        match self {
            AgentEvent::ActivityRecorded { .. } => "agent.activity-recorded",
            AgentEvent::BindingOpened { .. } => "agent.binding-opened",
            AgentEvent::BindingClosed { .. } => "agent.binding-closed",
        }
    }

    fn summary(&self) -> String {
        match self {
            AgentEvent::ActivityRecorded { activity: a, .. } => format!(
                "activity {} agent:{} {} {}{}",
                a.seq,
                a.session,
                a.method,
                a.outcome,
                a.code
                    .as_deref()
                    .map(|c| format!(" ({c})"))
                    .unwrap_or_default()
            ),
            AgentEvent::BindingOpened { binding: b, .. } => {
                format!(
                    "binding {} opened for agent:{} ({})",
                    b.id, b.session, b.client
                )
            }
            AgentEvent::BindingClosed { id, .. } => format!("binding {id} closed"),
        }
    }
}

/// The agent owner's state of one project (one entity; its id is the project's id).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AgentEntity {
    /// Retained records, oldest first.
    pub activities: VecDeque<Activity>,
    /// Seq of the newest record (0: none yet).
    pub last_seq: u64,
    /// Records evicted so far (the oldest go first).
    pub evicted: u64,
    /// Latest call per session.
    pub latest: BTreeMap<String, Latest>,
    pub bindings: BTreeMap<Uuid, Binding>,
    identities: IdentityTable<AgentReply>,
}

/// Commands of the agent entity.
#[derive(Debug, Clone)]
pub enum AgentCommand {
    Record { activity: Activity, keep: u64 },
    Open { binding: Binding, max: u64 },
    Close { id: Uuid, session: Option<String> },
}

/// Replies of the agent entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum AgentReply {
    Recorded(Activity),
    Binding(Binding),
}

impl AgentEntity {
    /// Seq of the oldest retained record (`last_seq + 1` when none is retained).
    pub fn oldest_seq(&self) -> u64 {
        self.activities.front().map_or(self.last_seq + 1, |a| a.seq)
    }
}

impl Entity for AgentEntity {
    const KIND: &'static str = "agent";
    type Event = AgentEvent;
    type Command = AgentCommand;
    type Reply = AgentReply;

    fn apply(&mut self, event: &AgentEvent, _meta: &EventMeta) {
        match event {
            AgentEvent::ActivityRecorded { activity, keep } => {
                self.last_seq = activity.seq;
                self.latest.insert(
                    activity.session.clone(),
                    Latest {
                        seq: activity.seq,
                        time_ms: activity.time_ms,
                        method: activity.method.clone(),
                        outcome: activity.outcome.clone(),
                        code: activity.code.clone(),
                    },
                );
                self.activities.push_back(activity.clone());
                while self.activities.len() as u64 > (*keep).max(1) {
                    self.activities.pop_front();
                    self.evicted += 1;
                }
            }
            AgentEvent::BindingOpened { binding, keep } => {
                self.bindings.insert(binding.id, binding.clone());
                while self
                    .bindings
                    .values()
                    .filter(|b| b.closed_ms.is_some())
                    .count() as u64
                    > *keep
                {
                    let oldest_closed = self
                        .bindings
                        .values()
                        .filter(|b| b.closed_ms.is_some())
                        .min_by_key(|b| (b.closed_ms, b.id))
                        .map(|b| b.id);
                    match oldest_closed {
                        Some(id) => drop(self.bindings.remove(&id)),
                        None => break,
                    }
                }
            }
            AgentEvent::BindingClosed { id, time_ms } => {
                if let Some(b) = self.bindings.get_mut(id) {
                    b.closed_ms = Some(*time_ms);
                }
            }
        }
    }

    fn decide(
        &self,
        command: &AgentCommand,
        ctx: &CommandContext,
    ) -> Result<Decision<AgentEvent, AgentReply>, ActorError> {
        match command {
            AgentCommand::Record { activity, keep } => {
                let mut activity = activity.clone();
                activity.seq = self.last_seq + 1;
                Ok(Decision {
                    events: vec![AgentEvent::ActivityRecorded {
                        activity: activity.clone(),
                        keep: *keep,
                    }],
                    reply: AgentReply::Recorded(activity),
                })
            }
            AgentCommand::Open { binding, max } => {
                let open = self
                    .bindings
                    .values()
                    .filter(|b| b.closed_ms.is_none())
                    .count() as u64;
                if open >= *max {
                    return Err(ActorError::Limit {
                        limit: "maxBindings".into(),
                        value: *max,
                    });
                }
                Ok(Decision {
                    events: vec![AgentEvent::BindingOpened {
                        binding: binding.clone(),
                        keep: *max,
                    }],
                    reply: AgentReply::Binding(binding.clone()),
                })
            }
            AgentCommand::Close { id, session } => {
                let found = self
                    .bindings
                    .get(id)
                    .filter(|b| session.as_ref().is_none_or(|s| *s == b.session))
                    .ok_or_else(|| ActorError::NotFound {
                        what: "binding".into(),
                    })?;
                let mut closed = found.clone();
                if closed.closed_ms.is_some() {
                    return Ok(Decision {
                        events: Vec::new(),
                        reply: AgentReply::Binding(closed),
                    });
                }
                closed.closed_ms = Some(ctx.time_ms);
                Ok(Decision {
                    events: vec![AgentEvent::BindingClosed {
                        id: *id,
                        time_ms: ctx.time_ms,
                    }],
                    reply: AgentReply::Binding(closed),
                })
            }
        }
    }

    fn identities(&self) -> &IdentityTable<AgentReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<AgentReply> {
        &mut self.identities
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::principal::Principal;

    fn ctx() -> CommandContext {
        CommandContext {
            principal: Principal::System,
            time_ms: 5,
            identity: None,
            needs: Vec::new(),
        }
    }

    fn meta() -> EventMeta {
        EventMeta {
            seq: 1,
            entity_seq: 1,
            time_ms: 5,
            principal: "system".into(),
        }
    }

    fn record(e: &mut AgentEntity, session: &str, keep: u64) {
        let activity = Activity {
            seq: 0,
            time_ms: 5,
            session: session.into(),
            method: "project.entries".into(),
            outcome: "ok".into(),
            code: None,
            source: "service".into(),
            ids: BTreeMap::new(),
        };
        let d = e
            .decide(&AgentCommand::Record { activity, keep }, &ctx())
            .unwrap();
        for ev in &d.events {
            e.apply(ev, &meta());
        }
    }

    #[test]
    fn activity_is_bounded_and_keeps_cursor_facts() {
        let mut e = AgentEntity::default();
        for i in 0..5 {
            record(&mut e, if i % 2 == 0 { "a" } else { "b" }, 3);
        }
        assert_eq!(e.activities.len(), 3);
        assert_eq!(e.evicted, 2);
        assert_eq!(e.oldest_seq(), 3);
        assert_eq!(e.last_seq, 5);
        assert_eq!(e.latest["a"].seq, 5);
        assert_eq!(e.latest["b"].seq, 4);
    }

    #[test]
    fn bindings_are_bounded_by_open_ones() {
        let mut e = AgentEntity::default();
        let open = |e: &AgentEntity| {
            let b = Binding {
                id: Uuid::new_v4(),
                label: "l".into(),
                client: "mcp".into(),
                session: "s".into(),
                principal: "agent:s".into(),
                opened_ms: 1,
                closed_ms: None,
            };
            e.decide(&AgentCommand::Open { binding: b, max: 2 }, &ctx())
        };
        for _ in 0..2 {
            let d = open(&e).unwrap();
            e.apply(&d.events[0], &meta());
        }
        assert!(matches!(open(&e), Err(ActorError::Limit { .. })));
        let first = *e.bindings.keys().next().unwrap();
        let d = e
            .decide(
                &AgentCommand::Close {
                    id: first,
                    session: Some("other".into()),
                },
                &ctx(),
            )
            .unwrap_err();
        assert!(matches!(d, ActorError::NotFound { .. }));
        let d = e
            .decide(
                &AgentCommand::Close {
                    id: first,
                    session: None,
                },
                &ctx(),
            )
            .unwrap();
        e.apply(&d.events[0], &meta());
        let d = open(&e).unwrap();
        e.apply(&d.events[0], &meta());
        assert_eq!(
            e.bindings.len(),
            3,
            "the closed binding made room and is retained"
        );
    }
}
