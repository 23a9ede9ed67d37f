//! Wire contracts of the external ACP relay: `agent.relay.record` (the relay's facts, operator
//! only) and `project.work.read` (the project's external sessions, read without starting anything).

use super::entity::{RelayFact, RelayHeader};
use crate::agent::conversation::ToolStep;
use crate::contract::{reply, schema, CallerKind, Effect, Needs, OperationSpec};
use crate::owners::Owner;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Facts one batch may carry.
pub const MAX_FACTS: usize = 256;
/// External sessions `project.work.read` shows.
pub const SHOWN: usize = 8;

/// One tool step as the relay folded it (bounded by the relay: title, one input, last lines).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StepWire {
    pub step_id: String,
    pub title: String,
    /// The ACP category.
    pub category: String,
    pub input: Option<String>,
    pub started_ms: u64,
    pub status: String,
    pub exit_code: Option<i32>,
    /// The last lines a command printed (at most 20 lines, 2 KiB).
    #[serde(default)]
    pub last_lines: String,
    pub purpose: Option<String>,
}

/// One fact of a batch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "camelCase", deny_unknown_fields)]
pub enum FactWire {
    #[serde(rename_all = "camelCase")]
    Session {
        n: u64,
        session_id: String,
        /// `new` or `load`.
        how: String,
    },
    #[serde(rename_all = "camelCase")]
    Prompt {
        n: u64,
        session_id: String,
        at_ms: i64,
    },
    #[serde(rename_all = "camelCase")]
    Step {
        n: u64,
        session_id: String,
        step: StepWire,
    },
    #[serde(rename_all = "camelCase")]
    Ended {
        n: u64,
        session_id: String,
        stop_reason: Option<String>,
        at_ms: i64,
    },
    #[serde(rename_all = "camelCase")]
    Closed { n: u64, at_ms: i64 },
}

/// `agent.relay.record`: what one relay saw since its last acknowledged batch.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RecordRequest {
    pub project_id: String,
    pub relay_id: String,
    /// `claude` or `codex`.
    pub agent: String,
    pub pid: u32,
    pub proc_start: u64,
    pub facts: Vec<FactWire>,
}

/// The reply: the last fact number now recorded (the relay drops what it sent up to it).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct RecordReply {
    pub recorded: u64,
}

/// `project.work.read`.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkReadRequest {
    pub project_id: String,
}

/// A prompt's facts (never its text).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct PromptView {
    pub session_id: String,
    pub started_at: String,
    pub ended_at: Option<String>,
    pub stop_reason: Option<String>,
}

/// One external session (one relay process and the ACP sessions its client used).
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExternalView {
    pub relay_id: String,
    pub agent: String,
    /// The relay process is alive (same pid and start time) and has not closed.
    pub connected: bool,
    pub first_at: String,
    pub last_at: String,
    pub closed_at: Option<String>,
    pub sessions: Vec<String>,
    pub prompts: u64,
    pub last_prompt: Option<PromptView>,
    pub steps: Vec<StepWire>,
}

/// `project.work.read`: at most eight external sessions, connected first, then most recent.
#[derive(Debug, Clone, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct WorkReply {
    pub external: Vec<ExternalView>,
    /// External sessions kept but not shown.
    pub omitted: u64,
}

impl StepWire {
    pub fn from_step(s: &ToolStep) -> StepWire {
        StepWire {
            step_id: s.id.clone(),
            title: s.title.clone(),
            category: s.kind.clone(),
            input: s.input.clone(),
            started_ms: s.started_ms,
            status: s.status.clone(),
            exit_code: s.exit_code,
            last_lines: s.output.clone(),
            purpose: s.purpose.clone(),
        }
    }
}

impl FactWire {
    /// The relay-local order number.
    pub fn n(&self) -> u64 {
        match self {
            FactWire::Session { n, .. }
            | FactWire::Prompt { n, .. }
            | FactWire::Step { n, .. }
            | FactWire::Ended { n, .. }
            | FactWire::Closed { n, .. } => *n,
        }
    }

    /// The journaled form.
    pub fn into_fact(self) -> RelayFact {
        match self {
            FactWire::Session { n, session_id, how } => RelayFact::Session { n, session_id, how },
            FactWire::Prompt {
                n,
                session_id,
                at_ms,
            } => RelayFact::Prompt {
                n,
                session_id,
                at_ms,
            },
            FactWire::Step {
                n,
                session_id,
                step,
            } => RelayFact::Step {
                n,
                session_id,
                step,
            },
            FactWire::Ended {
                n,
                session_id,
                stop_reason,
                at_ms,
            } => RelayFact::Ended {
                n,
                session_id,
                stop_reason,
                at_ms,
            },
            FactWire::Closed { n, at_ms } => RelayFact::Closed { n, at_ms },
        }
    }
}

impl RecordRequest {
    /// The relay's identity.
    pub fn header(&self) -> RelayHeader {
        RelayHeader {
            relay_id: self.relay_id.clone(),
            agent: self.agent.clone(),
            pid: self.pid,
            proc_start: self.proc_start,
        }
    }
}

const fn op(
    name: &'static str,
    effect: Effect,
    callers: &'static [CallerKind],
    summary: &'static str,
    request: fn() -> schemars::Schema,
    response: fn() -> schemars::Schema,
    errors: &'static [&'static str],
) -> OperationSpec {
    OperationSpec {
        name,
        version: "0.1.0",
        owner: Some(Owner::Agent),
        needs: Needs::Owner,
        effect,
        callers,
        project_scoped: true,
        summary,
        request,
        response,
        errors,
        events: &["work.changed"],
    }
}

/// Who reads the external sessions: the person and the operator.
const READERS: &[CallerKind] = &[CallerKind::Local, CallerKind::Paired, CallerKind::Operator];

pub const OPERATIONS: &[OperationSpec] = &[
    op("agent.relay.record", Effect::Write, &[CallerKind::Operator],
        "Operator only (the `rho --acp` relay): record what an external ACP client's session did — sessions created or loaded, prompts' existence and times, tool steps, stop reasons — never a prompt's text or a permission choice. Facts are numbered; a resent batch records nothing twice.",
        schema::<RecordRequest>, reply::<RecordReply>, &["invalid", "not_found", "conflict", "limit"]),
    op("project.work.read", Effect::Read, READERS,
        "The project's external ACP sessions (relays of `rho --acp`): at most eight, connected first, then most recent, with the count of those omitted. Starts no runtime and takes no input.",
        schema::<WorkReadRequest>, reply::<WorkReply>, &["invalid", "not_found"]).retained(),
];
