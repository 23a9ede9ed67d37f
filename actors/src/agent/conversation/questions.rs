//! A server's questions to the person in a conversation of Rho's own agent (decision 0808): a
//! form (`elicitation/create`) or a sampling request (gate two), each shown as a question on
//! its message (a permission record whose options are accept, decline and cancel), its
//! details read live (`conversation.question`) and answered with `conversation.answer` (a
//! form's content checked against its schema first, naming the field that is wrong).

use super::session::PermissionRequest;
use super::surfaces_contract::{ChoiceView, FormFieldView, QuestionView};
use crate::error::ActorError;
use rho_mcp::agent::{FormAsk, SamplingQuestion};
use rho_mcp::form::check_content;
use rho_mcp::policy::{Answer, FieldKind, Question};
use serde_json::{json, Value};
use std::collections::HashMap;

/// The word of a request id that marks a form (`<message>-form-<n>`).
pub const FORM: &str = "form";
/// The word of a request id that marks a sampling question (`<message>-sampling-<n>`).
pub const SAMPLING: &str = "sampling";

/// What a question record's request id says it is: `form`, `sampling`, or `permission` (the
/// Agent's own permission request).
pub fn kind_of(request_id: &str) -> &'static str {
    match request_id.rsplit('-').nth(1) {
        Some(FORM) => FORM,
        Some(SAMPLING) => SAMPLING,
        _ => "permission",
    }
}

/// The word a question's request id carries (`None`: an ACP permission).
pub fn tag(p: &PermissionRequest) -> Option<&'static str> {
    match p.request.get("kind").and_then(Value::as_str) {
        Some(FORM) => Some(FORM),
        Some(SAMPLING) => Some(SAMPLING),
        _ => None,
    }
}

/// An open question of the session.
enum Open {
    Form(Question),
    Sampling(SamplingQuestion),
}

/// How the person answered, for the session.
pub enum Reply {
    Form(u64, Answer),
    /// Allowed or not; `true` in the second place also ends the turn (cancel).
    Sampling(u64, bool, bool),
}

/// The session's open questions, by the session's own question id.
#[derive(Default)]
pub struct Questions {
    open: HashMap<u64, Open>,
}

/// `(optionId, kind, name)` as a permission request carries them.
fn options(allow: &str, refuse: &str) -> Vec<(String, String, String)> {
    vec![
        ("accept".into(), "accept".into(), allow.to_string()),
        ("decline".into(), "decline".into(), refuse.to_string()),
        ("cancel".into(), "cancel".into(), "Cancel".into()),
    ]
}

impl Questions {
    /// A form as the question its message shows, titled with the asking server.
    pub fn form(&mut self, ask: FormAsk) -> PermissionRequest {
        let q = ask.question;
        let title = format!("{} asks: {}", q.server, q.message);
        self.open.insert(ask.id, Open::Form(q));
        PermissionRequest {
            request: json!({"kind": FORM, "id": ask.id}),
            tool_call_id: ask.call,
            title: Some(title),
            options: options("Submit", "Decline"),
        }
    }

    /// A sampling request as the question its message shows: the server, how many messages,
    /// the token ceiling and the model that would answer.
    pub fn sampling(&mut self, ask: SamplingQuestion) -> PermissionRequest {
        let title = format!(
            "{} asks to use your model {}: {} message{}, up to {} tokens",
            ask.server,
            ask.model,
            ask.messages,
            if ask.messages == 1 { "" } else { "s" },
            ask.max_tokens
        );
        let call = ask.call.clone();
        let id = ask.id;
        self.open.insert(id, Open::Sampling(ask));
        PermissionRequest {
            request: json!({"kind": SAMPLING, "id": id}),
            tool_call_id: call,
            title: Some(title),
            options: options("Allow", "Refuse"),
        }
    }

    fn id(p: &PermissionRequest) -> Option<u64> {
        p.request.get("id").and_then(Value::as_u64)
    }

    /// The details the panel renders (`None`: not open any more).
    pub fn view(&self, request_id: &str, p: &PermissionRequest) -> Option<QuestionView> {
        let open = self.open.get(&Self::id(p)?)?;
        Some(match open {
            Open::Form(q) => QuestionView {
                request_id: request_id.to_string(),
                kind: FORM.into(),
                server: q.server.clone(),
                message: Some(q.message.clone()),
                // In the schema's own property order, as the server sent it.
                fields: q.fields.iter().map(field).collect(),
                messages: None,
                max_tokens: None,
                model: None,
            },
            Open::Sampling(s) => QuestionView {
                request_id: request_id.to_string(),
                kind: SAMPLING.into(),
                server: s.server.clone(),
                message: None,
                fields: Vec::new(),
                messages: Some(s.messages as u64),
                max_tokens: Some(s.max_tokens),
                model: Some(s.model.clone()),
            },
        })
    }

    /// The person's answer: `accept` (a form's content checked against its schema),
    /// `decline` or `cancel`. Bad content is refused naming the field; the question stays open.
    pub fn reply(
        &mut self,
        p: &PermissionRequest,
        action: &str,
        content: &Value,
    ) -> Result<Reply, ActorError> {
        let id = Self::id(p).ok_or_else(|| {
            ActorError::invalid(
                "requestId",
                "that request is the Agent's permission: answer it with conversation.permission",
            )
        })?;
        let open = self
            .open
            .get(&id)
            .ok_or_else(|| ActorError::conflict("that question is no longer open"))?;
        let reply = match (open, action) {
            (Open::Form(q), "accept") => {
                let answers = check_content(q, content).map_err(|e| {
                    ActorError::invalid(&format!("content.{}", e.field), e.to_string())
                })?;
                Reply::Form(id, Answer::Submitted(answers))
            }
            (Open::Form(_), "decline") => Reply::Form(id, Answer::Declined),
            (Open::Form(_), "cancel") => Reply::Form(id, Answer::Dismissed),
            (Open::Sampling(_), "accept") => Reply::Sampling(id, true, false),
            (Open::Sampling(_), "decline") => Reply::Sampling(id, false, false),
            (Open::Sampling(_), "cancel") => Reply::Sampling(id, false, true),
            _ => {
                return Err(ActorError::invalid(
                    "action",
                    "the action is accept, decline or cancel",
                ))
            }
        };
        self.open.remove(&id);
        Ok(reply)
    }

    /// Forgets every open question (the turn ended or was cancelled).
    pub fn clear(&mut self) {
        self.open.clear();
    }
}

fn field(f: &rho_mcp::policy::Field) -> FormFieldView {
    let (kind, options) = match &f.kind {
        FieldKind::Text => ("text", &[][..]),
        FieldKind::Confirm => ("boolean", &[][..]),
        FieldKind::Number { integer: true } => ("integer", &[][..]),
        FieldKind::Number { integer: false } => ("number", &[][..]),
        FieldKind::Choice {
            options,
            multi: false,
        } => ("choice", options.as_slice()),
        FieldKind::Choice {
            options,
            multi: true,
        } => ("multi", options.as_slice()),
    };
    let (min, max) = match &f.kind {
        FieldKind::Text => ("minLength", "maxLength"),
        FieldKind::Choice { multi: true, .. } => ("minItems", "maxItems"),
        _ => ("minimum", "maximum"),
    };
    FormFieldView {
        name: f.name.clone(),
        title: f.title.clone(),
        help: f.help.clone(),
        kind: kind.into(),
        options: options
            .iter()
            .map(|(value, label)| ChoiceView {
                value: value.clone(),
                label: label.clone(),
            })
            .collect(),
        required: f.required,
        default: f.default.clone(),
        min: f.schema[min].as_f64(),
        max: f.schema[max].as_f64(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_id_says_what_the_question_is() {
        assert_eq!(kind_of("m1a2-form-3"), FORM);
        assert_eq!(kind_of("m1a2-sampling-1"), SAMPLING);
        assert_eq!(kind_of("7c9e6679-2"), "permission");
    }
}
