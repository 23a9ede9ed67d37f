//! The external ACP sessions a project's relays (`rho --acp`) reported: a pure fold of the facts
//! each relay sends (sessions, prompts' existence and times, tool steps, stop reasons), bounded.

use super::contract::StepWire;
use crate::entity::{CommandContext, Decision, Entity, EntityEvent, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Steps kept per relay (the latest ones).
pub const STEPS_KEPT: usize = 20;
/// ACP session ids kept per relay.
pub const SESSIONS_KEPT: usize = 16;

/// Who a relay is: its id (one per `rho --acp` process), the Agent it starts and its process.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayHeader {
    pub relay_id: String,
    /// `claude` or `codex`.
    pub agent: String,
    pub pid: u32,
    /// The relay process's start time (`/proc/<pid>/stat` field 22), so a reused pid is not it.
    pub proc_start: u64,
}

/// One fact a relay saw on the wire, as journaled (bincode: externally tagged, unlike the wire).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelayFact {
    /// The client created (`new`) or loaded (`load`) an ACP session.
    Session {
        n: u64,
        session_id: String,
        how: String,
    },
    /// The client sent a prompt (its text stays in the client).
    Prompt {
        n: u64,
        session_id: String,
        at_ms: i64,
    },
    /// A tool step of the running prompt, as the relay folded it.
    Step {
        n: u64,
        session_id: String,
        step: StepWire,
    },
    /// The prompt's response: its stop reason (`None`: an error response).
    Ended {
        n: u64,
        session_id: String,
        stop_reason: Option<String>,
        at_ms: i64,
    },
    /// The relay is ending (the client closed its input, or the Agent exited).
    Closed { n: u64, at_ms: i64 },
}

impl RelayFact {
    /// The relay-local order number (a resent batch repeats numbers already folded).
    pub fn n(&self) -> u64 {
        match self {
            RelayFact::Session { n, .. }
            | RelayFact::Prompt { n, .. }
            | RelayFact::Step { n, .. }
            | RelayFact::Ended { n, .. }
            | RelayFact::Closed { n, .. } => *n,
        }
    }
}

/// The latest prompt of a relay.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptFacts {
    pub session_id: String,
    pub started_ms: i64,
    pub ended_ms: Option<i64>,
    pub stop_reason: Option<String>,
}

/// What is kept of one relay.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayRecord {
    pub header: RelayHeader,
    pub first_ms: i64,
    pub last_ms: i64,
    pub closed_ms: Option<i64>,
    /// The last fact number folded.
    pub last_n: u64,
    pub sessions: Vec<String>,
    pub prompts: u64,
    pub last_prompt: Option<PromptFacts>,
    pub steps: Vec<StepWire>,
}

/// Journal events of the relay entity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum RelayEvent {
    /// A relay reported for the first time.
    Seen { header: RelayHeader },
    /// A fact a relay reported.
    Fact { relay_id: String, fact: RelayFact },
    /// The oldest relay record was dropped to stay within the bound.
    Evicted { relay_id: String },
}

impl EntityEvent for RelayEvent {
    fn kind(&self) -> &'static str {
        match self {
            RelayEvent::Seen { .. } => "relay.seen",
            RelayEvent::Fact { .. } => "relay.fact",
            RelayEvent::Evicted { .. } => "relay.evicted",
        }
    }

    fn summary(&self) -> String {
        match self {
            RelayEvent::Seen { header } => format!(
                "relay {} ({}) pid {}",
                header.relay_id, header.agent, header.pid
            ),
            RelayEvent::Fact { relay_id, fact } => {
                let what = match fact {
                    RelayFact::Session { how, .. } => format!("session {how}"),
                    RelayFact::Prompt { .. } => "prompt".to_string(),
                    RelayFact::Step { step, .. } => {
                        format!("step {} {}", step.category, step.status)
                    }
                    RelayFact::Ended { stop_reason, .. } => {
                        format!(
                            "ended {}",
                            stop_reason.as_deref().unwrap_or("with an error")
                        )
                    }
                    RelayFact::Closed { .. } => "closed".to_string(),
                };
                format!("relay {relay_id} #{}: {what}", fact.n())
            }
            RelayEvent::Evicted { relay_id } => format!("relay {relay_id} evicted"),
        }
    }
}

/// The command: record what one relay reported.
#[derive(Debug, Clone)]
pub struct RecordFacts {
    pub header: RelayHeader,
    pub facts: Vec<RelayFact>,
    /// Relay records kept per project.
    pub keep: usize,
}

/// Every relay of a project that reported.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RelayEntity {
    relays: BTreeMap<String, RelayRecord>,
    identities: IdentityTable<u64>,
}

impl RelayEntity {
    /// Every kept relay record.
    pub fn records(&self) -> impl Iterator<Item = &RelayRecord> {
        self.relays.values()
    }

    /// One relay's record.
    pub fn get(&self, relay_id: &str) -> Option<&RelayRecord> {
        self.relays.get(relay_id)
    }

    fn fold_fact(r: &mut RelayRecord, fact: &RelayFact, time_ms: i64) {
        r.last_n = r.last_n.max(fact.n());
        r.last_ms = time_ms;
        match fact {
            RelayFact::Session { session_id, .. } => {
                r.sessions.retain(|s| s != session_id);
                r.sessions.push(session_id.clone());
                if r.sessions.len() > SESSIONS_KEPT {
                    r.sessions.remove(0);
                }
            }
            RelayFact::Prompt {
                session_id, at_ms, ..
            } => {
                r.prompts += 1;
                r.last_prompt = Some(PromptFacts {
                    session_id: session_id.clone(),
                    started_ms: *at_ms,
                    ended_ms: None,
                    stop_reason: None,
                });
            }
            RelayFact::Step { step, .. } => {
                match r.steps.iter_mut().find(|s| s.step_id == step.step_id) {
                    Some(s) => *s = step.clone(),
                    None => r.steps.push(step.clone()),
                }
                if r.steps.len() > STEPS_KEPT {
                    r.steps.remove(0);
                }
            }
            RelayFact::Ended {
                session_id,
                stop_reason,
                at_ms,
                ..
            } => {
                if let Some(p) = r
                    .last_prompt
                    .as_mut()
                    .filter(|p| &p.session_id == session_id && p.ended_ms.is_none())
                {
                    p.ended_ms = Some(*at_ms);
                    p.stop_reason = stop_reason.clone();
                }
            }
            RelayFact::Closed { at_ms, .. } => r.closed_ms = Some(*at_ms),
        }
    }
}

impl Entity for RelayEntity {
    const KIND: &'static str = "relay";
    type Event = RelayEvent;
    type Command = RecordFacts;
    type Reply = u64;

    fn apply(&mut self, event: &RelayEvent, meta: &EventMeta) {
        match event {
            RelayEvent::Seen { header } => {
                self.relays.insert(
                    header.relay_id.clone(),
                    RelayRecord {
                        header: header.clone(),
                        first_ms: meta.time_ms,
                        last_ms: meta.time_ms,
                        closed_ms: None,
                        last_n: 0,
                        sessions: Vec::new(),
                        prompts: 0,
                        last_prompt: None,
                        steps: Vec::new(),
                    },
                );
            }
            RelayEvent::Fact { relay_id, fact } => {
                if let Some(r) = self.relays.get_mut(relay_id) {
                    Self::fold_fact(r, fact, meta.time_ms);
                }
            }
            RelayEvent::Evicted { relay_id } => {
                self.relays.remove(relay_id);
            }
        }
    }

    fn decide(
        &self,
        command: &RecordFacts,
        _ctx: &CommandContext,
    ) -> Result<Decision<RelayEvent, u64>, ActorError> {
        let id = &command.header.relay_id;
        let known = self.relays.get(id);
        if let Some(r) = known.filter(|r| r.header != command.header) {
            return Err(ActorError::conflict(format!(
                "relay {id} was reported by another process (pid {})",
                r.header.pid
            )));
        }
        let mut events = Vec::new();
        if known.is_none() {
            // The oldest relays go first, closed ones before those still reporting.
            let mut order: Vec<&RelayRecord> = self.relays.values().collect();
            order.sort_by_key(|r| (r.closed_ms.is_none(), r.last_ms));
            let over = (self.relays.len() + 1).saturating_sub(command.keep.max(1));
            events.extend(order.iter().take(over).map(|r| RelayEvent::Evicted {
                relay_id: r.header.relay_id.clone(),
            }));
            events.push(RelayEvent::Seen {
                header: command.header.clone(),
            });
        }
        let mut last = known.map_or(0, |r| r.last_n);
        for fact in &command.facts {
            // A batch resent after a lost reply repeats facts already folded.
            if fact.n() <= last {
                continue;
            }
            last = fact.n();
            events.push(RelayEvent::Fact {
                relay_id: id.clone(),
                fact: fact.clone(),
            });
        }
        Ok(Decision {
            events,
            reply: last,
        })
    }

    fn identities(&self) -> &IdentityTable<u64> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<u64> {
        &mut self.identities
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::principal::Principal;

    fn header(id: &str) -> RelayHeader {
        RelayHeader {
            relay_id: id.into(),
            agent: "codex".into(),
            pid: 7,
            proc_start: 9,
        }
    }

    fn run(e: &mut RelayEntity, id: &str, facts: Vec<RelayFact>, keep: usize) -> u64 {
        let cmd = RecordFacts {
            header: header(id),
            facts,
            keep,
        };
        let d = e
            .decide(&cmd, &CommandContext::now(Principal::System))
            .unwrap();
        for ev in &d.events {
            let meta = EventMeta {
                seq: 1,
                entity_seq: 1,
                time_ms: 100,
                principal: "system".into(),
            };
            e.apply(ev, &meta);
        }
        d.reply
    }

    fn prompt(n: u64) -> RelayFact {
        RelayFact::Prompt {
            n,
            session_id: "s".into(),
            at_ms: 5,
        }
    }

    #[test]
    fn a_resent_batch_records_nothing_twice() {
        let mut e = RelayEntity::default();
        assert_eq!(run(&mut e, "a", vec![prompt(1), prompt(2)], 8), 2);
        assert_eq!(
            run(&mut e, "a", vec![prompt(1), prompt(2), prompt(3)], 8),
            3
        );
        assert_eq!(e.get("a").unwrap().prompts, 3);
    }

    #[test]
    fn the_oldest_closed_relay_goes_first_and_another_process_is_a_conflict() {
        let mut e = RelayEntity::default();
        run(&mut e, "a", vec![RelayFact::Closed { n: 1, at_ms: 1 }], 2);
        run(&mut e, "b", vec![], 2);
        run(&mut e, "c", vec![], 2);
        assert!(e.get("a").is_none() && e.get("b").is_some() && e.get("c").is_some());
        let other = RecordFacts {
            header: RelayHeader {
                pid: 8,
                ..header("b")
            },
            facts: vec![],
            keep: 2,
        };
        assert!(e
            .decide(&other, &CommandContext::now(Principal::System))
            .is_err());
    }

    #[test]
    fn every_event_survives_the_journal_codec() {
        let step = StepWire {
            step_id: "t".into(),
            title: "ls".into(),
            category: "execute".into(),
            input: Some("ls".into()),
            started_ms: 1,
            status: "completed".into(),
            exit_code: Some(0),
            last_lines: "a".into(),
            purpose: None,
        };
        let events = [
            RelayEvent::Seen {
                header: header("a"),
            },
            RelayEvent::Fact {
                relay_id: "a".into(),
                fact: RelayFact::Step {
                    n: 1,
                    session_id: "s".into(),
                    step,
                },
            },
            RelayEvent::Fact {
                relay_id: "a".into(),
                fact: RelayFact::Ended {
                    n: 2,
                    session_id: "s".into(),
                    stop_reason: None,
                    at_ms: 3,
                },
            },
            RelayEvent::Evicted {
                relay_id: "a".into(),
            },
        ];
        for ev in events {
            let bytes = crate::codec::encode(&ev).unwrap();
            let back: RelayEvent =
                crate::codec::decode(crate::codec::CURRENT_CODEC, &bytes).unwrap();
            assert_eq!(back, ev);
        }
    }
}
