//! The wire views of a conversation's journaled record (docs/conversations.md shapes).

use super::contract::{
    CallView, ConversationView, CutView, DecisionView, DroppedView, ErrorView, FileVersionView,
    MessageView, OmittedView, OptionView, PartView, PermissionView, ResourceRefView, SpendView,
    StepView, UsageView,
};
use super::entity::{
    ConversationEntity, DecisionRecord, KeptFile, Message, MessageState, Part, Permission,
};
use super::launch::Backend;
use super::record::ToolStep;
use rho_plumbing::time::{rfc3339_ms, rfc3339_ms_opt};

/// The wire name of a backend.
pub fn backend(b: Backend) -> &'static str {
    match b {
        Backend::ClaudeAgentAcp => "claude",
        Backend::CodexAcp => "codex",
        Backend::ClaudeCli => "claude-cli",
        Backend::Rho => "rho",
    }
}

/// A backend from its wire name (`claude`, `codex`) or its adapter's (`claude-agent-acp`, ...).
pub fn parse_backend(name: &str) -> Option<Backend> {
    match name {
        "claude" => Some(Backend::ClaudeAgentAcp),
        "codex" => Some(Backend::CodexAcp),
        "claude-cli" => Some(Backend::ClaudeCli),
        "rho" => Some(Backend::Rho),
        other => Backend::parse(other),
    }
}

/// A conversation's view (`None` before it started).
pub fn conversation(c: &ConversationEntity) -> Option<ConversationView> {
    let info = c.info.as_ref()?;
    let last = c
        .messages
        .iter()
        .map(|m| m.ended_ms.unwrap_or(m.original.sent_ms))
        .max()
        .unwrap_or(info.started_ms);
    Some(ConversationView {
        conversation_id: info.conversation_id.to_string(),
        backend: backend(info.backend).into(),
        title: info.title.clone(),
        started_at: rfc3339_ms(info.started_ms),
        started_by: info.started_by.clone(),
        state: c.state().into(),
        message_count: c.messages.len() as u64,
        last_at: rfc3339_ms(last),
        agent_session_id: info.agent_session_id.clone(),
        note: info.note.clone(),
        dropped: c.dropped_by.as_ref().map(|limit| DroppedView {
            count: c.dropped,
            limit: limit.clone(),
        }),
        spend: spend(&c.spend),
    })
}

/// A kept file version.
pub fn file(f: &KeptFile) -> FileVersionView {
    FileVersionView {
        path: f.path.clone(),
        digest: format!("sha256:{}", f.digest),
        bytes: f.bytes,
        resource: f.resource.map(|(id, version)| ResourceRefView {
            id: id.to_string(),
            version,
        }),
    }
}

/// A decision's view.
pub fn decision(message_id: &str, d: &DecisionRecord) -> DecisionView {
    DecisionView {
        decision_id: d.decision_id.clone(),
        message_id: message_id.to_string(),
        decision: d.decision.clone(),
        note: d.note.clone(),
        at: rfc3339_ms(d.at_ms),
        by: d.by.clone(),
        supersedes: d.supersedes.clone(),
        resources: d.files.iter().map(file).collect(),
    }
}

/// Totals per purpose as the views list them.
fn spend(totals: &super::ledger::Spend) -> Vec<SpendView> {
    totals
        .iter()
        .map(|(purpose, t)| SpendView {
            purpose: purpose.clone(),
            input_tokens: t.input_tokens,
            output_tokens: t.output_tokens,
            requests: t.requests,
        })
        .collect()
}

fn call(c: &super::ledger::CallRecord) -> CallView {
    CallView {
        name: c.name.clone(),
        server: c.server.clone(),
        operation: c.operation.clone(),
        duration_ms: c.duration_ms,
        raw_input: c.input.clone(),
        raw_output: c.output.clone(),
        is_error: c.is_error,
        cancelled: c.cancelled,
    }
}

fn step(s: &ToolStep, m: &Message) -> StepView {
    let execute = s.kind == "execute";
    StepView {
        step_id: s.id.clone(),
        title: s.title.clone(),
        category: if s.kind.is_empty() {
            "other".into()
        } else {
            s.kind.clone()
        },
        input: s.input.clone(),
        started_at: rfc3339_ms(i64::try_from(s.started_ms).unwrap_or_default()),
        status: s.status.clone(),
        exit_code: s.exit_code,
        last_lines: (execute && !s.output.is_empty()).then(|| s.output.clone()),
        purpose: s.purpose.clone(),
        call: m
            .calls
            .iter()
            .find(|c| c.id == s.id)
            .map(|c| Box::new(call(c))),
    }
}

fn permission(p: &Permission) -> PermissionView {
    PermissionView {
        request_id: p.request_id.clone(),
        step_id: p.step_id.clone(),
        title: p.title.clone(),
        options: p
            .options
            .iter()
            .map(|(id, name, kind)| OptionView {
                option_id: id.clone(),
                name: name.clone(),
                kind: kind.clone(),
            })
            .collect(),
        state: match &p.outcome {
            None => "pending",
            Some(None) => "cancelled",
            Some(Some(_)) => "chosen",
        }
        .into(),
        chosen: p.outcome.clone().flatten(),
        chosen_by: p.chosen_by.clone(),
        asked_at: rfc3339_ms(p.asked_ms),
        kind: super::questions::kind_of(&p.request_id).into(),
    }
}

/// A message's view.
pub fn message(m: &Message) -> MessageView {
    let o = &m.original;
    let parts = m
        .parts
        .iter()
        .filter_map(|p| match p {
            Part::Text(t) => Some(PartView::Text { text: t.clone() }),
            Part::Step(id) => m
                .steps
                .iter()
                .find(|s| s.id == *id)
                .map(|s| PartView::Step { step: step(s, m) }),
        })
        .collect();
    let cut = &m.cut;
    MessageView {
        message_id: o.message_id.clone(),
        change_id: o.change_id.clone(),
        text: o.text.clone(),
        contexts: o.contexts.clone(),
        sent_at: rfc3339_ms(o.sent_ms),
        sent_by: o.sent_by.clone(),
        state: match m.state {
            MessageState::Running => "running",
            MessageState::Ended => "ended",
            MessageState::Unknown => "unknown",
        }
        .into(),
        stopping: m.stopping,
        stop_reason: m.stop_reason.clone(),
        error: m.error.as_ref().map(|(code, message)| ErrorView {
            code: code.clone(),
            message: message.clone(),
        }),
        ended_at: m.ended_ms.and_then(rfc3339_ms_opt),
        parts,
        usage: m.usage.as_ref().map(|u| UsageView {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            total_tokens: u.total_tokens,
        }),
        permissions: m.permissions.iter().map(permission).collect(),
        decisions: m
            .decisions
            .iter()
            .map(|d| decision(&o.message_id, d))
            .collect(),
        cut: (cut.text_bytes + cut.steps + cut.outputs > 0 || !m.cut_by.is_empty()).then(|| {
            CutView {
                text_bytes: cut.text_bytes,
                steps: cut.steps,
                outputs: cut.outputs,
                limits: m.cut_by.clone(),
            }
        }),
        kept: m.kept.iter().map(file).collect(),
        kept_omitted: m
            .kept_omitted
            .iter()
            .map(|(path, reason)| OmittedView {
                path: path.clone(),
                reason: reason.clone(),
            })
            .collect(),
        spend: spend(&m.spend),
        retries: m.retries.clone(),
    }
}
