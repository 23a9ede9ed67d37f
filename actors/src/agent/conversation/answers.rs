//! What a running turn does with a question and the controls that arrive meanwhile: a
//! permission (or a form or sampling question of Rho's own agent) journaled as asked, the
//! person's answer journaled once delivered, the live details of a question, `/mcp`, and stop.

use super::control::{Control, Live};
use super::entity::{ConversationEvent, Permission};
use super::questions;
use super::session::PermissionRequest;
use super::turn::{cancel, Turn};
use crate::error::ActorError;
use tokio::sync::oneshot;

pub(super) fn asked(t: &mut Turn, p: PermissionRequest, facts: &mut Vec<ConversationEvent>) {
    t.asked += 1;
    let request_id = match questions::tag(&p) {
        Some(tag) => format!("{}-{tag}-{}", t.message_id, t.asked),
        None => format!("{}-{}", t.message_id, t.asked),
    };
    facts.push(ConversationEvent::Asked {
        message_id: t.message_id.clone(),
        permission: Permission {
            request_id: request_id.clone(),
            step_id: p.tool_call_id.clone(),
            title: p.title.clone().unwrap_or_default(),
            options: p
                .options
                .iter()
                .map(|(id, kind, name)| (id.clone(), name.clone(), kind.clone()))
                .collect(),
            outcome: None,
            chosen_by: None,
            asked_ms: rho_plumbing::time::now_ms(),
        },
    });
    t.pending.insert(request_id, p);
}

/// An answer to confirm once its fact is journaled.
pub(super) type Answered = Option<(
    oneshot::Sender<Result<(), ActorError>>,
    Result<(), ActorError>,
)>;

fn not_pending(what: &str) -> ActorError {
    ActorError::conflict(format!("that {what} is no longer pending"))
}

pub(super) fn control(
    s: &mut Live,
    t: &mut Turn,
    c: Control,
    facts: &mut Vec<ConversationEvent>,
) -> Answered {
    match c {
        Control::Prompt { .. } => None,
        Control::Answer {
            request_id,
            option_id,
            by,
            done,
        } => {
            let answer = match t.pending.get(&request_id) {
                None => Err(not_pending("permission request")),
                Some(p) if questions::tag(p).is_some() => Err(ActorError::invalid(
                    "requestId",
                    "a server's form or sampling question is answered with conversation.answer",
                )),
                Some(p) if s.answer(p, &option_id) => {
                    t.pending.remove(&request_id);
                    facts.push(ConversationEvent::Answered {
                        message_id: t.message_id.clone(),
                        request_id,
                        option_id: Some(option_id),
                        by,
                    });
                    Ok(())
                }
                Some(_) => Err(ActorError::invalid(
                    "optionId",
                    "the Agent did not offer that option",
                )),
            };
            Some((done, answer))
        }
        Control::Reply {
            request_id,
            action,
            content,
            by,
            done,
        } => {
            let answer = match t.pending.get(&request_id) {
                None => Err(not_pending("question")),
                Some(p) => s.reply(p, &action, &content).map(|stop| {
                    t.pending.remove(&request_id);
                    facts.push(ConversationEvent::Answered {
                        message_id: t.message_id.clone(),
                        request_id,
                        option_id: Some(action),
                        by,
                    });
                    if stop && t.waiters.is_empty() && t.limit.is_none() {
                        cancel(s, t, facts);
                    }
                }),
            };
            Some((done, answer))
        }
        Control::Question { request_id, done } => {
            let view = t
                .pending
                .get(&request_id)
                .and_then(|p| s.question(&request_id, p));
            let _ = done.send(view);
            None
        }
        Control::Servers { done } => {
            let _ = done.send(s.mcp_report());
            None
        }
        Control::Runtime { done } => {
            let _ = done.send(s.runtime());
            None
        }
        Control::Stop { done } => {
            if t.waiters.is_empty() && t.limit.is_none() {
                cancel(s, t, facts);
            }
            t.waiters.push(done);
            None
        }
    }
}
