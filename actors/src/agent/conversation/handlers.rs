//! The project actor's conversation messages: start and send (journaled before the Agent sees
//! them, then handed to the driver exactly once), learn (the driver's facts, announced as
//! `conversation.changed`), read, list, permission and stop.

use super::driver::{Control, Setup, Sink};
use super::entity::{
    ConvReply, ConversationCommand, ConversationEntity, ConversationEvent, Info, MessageState,
    Original,
};
use crate::child::{Execute, Query};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::time::Duration;
use uuid::Uuid;

/// `conversation.start`: a new conversation with its first message.
#[derive(Message)]
#[rtype(result = "Result<(ConversationEntity, String), ActorError>")]
pub struct StartConversation {
    pub info: Info,
    pub original: Original,
    pub ctx: CommandContext,
    /// Its driver's setup (`cwd` and `resume` are set here).
    pub setup: Setup,
}

/// `conversation.send`: the next message of a conversation.
#[derive(Message)]
#[rtype(result = "Result<(ConversationEntity, String), ActorError>")]
pub struct SendMessage {
    pub conversation_id: Uuid,
    pub original: Original,
    pub ctx: CommandContext,
    pub setup: Setup,
}

/// The driver's facts about a conversation.
#[derive(Message)]
#[rtype(result = "Result<(), ActorError>")]
pub struct LearnConversation {
    pub conversation_id: Uuid,
    pub events: Vec<ConversationEvent>,
}

/// One conversation (`not_found` if there is none).
#[derive(Message)]
#[rtype(result = "Result<ConversationEntity, ActorError>")]
pub struct ReadConversation {
    pub conversation_id: Uuid,
}

/// Every conversation of the project.
#[derive(Message)]
#[rtype(result = "Result<Vec<ConversationEntity>, ActorError>")]
pub struct ListConversations;

/// `conversation.permission`.
#[derive(Message)]
#[rtype(result = "Result<ConversationEntity, ActorError>")]
pub struct AnswerPermission {
    pub conversation_id: Uuid,
    pub request_id: String,
    pub option_id: String,
    pub by: String,
}

/// `conversation.stop`: waits at most `bound` for the prompt's response to confirm it.
#[derive(Message)]
#[rtype(result = "Result<(ConversationEntity, String), ActorError>")]
pub struct StopConversation {
    pub conversation_id: Uuid,
    pub bound: Duration,
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(format!("mailbox: {e}"))
}

async fn read(
    child: Addr<crate::child::EntityActor<ConversationEntity>>,
) -> Result<ConversationEntity, ActorError> {
    let read = Box::new(|e: &ConversationEntity| e.clone());
    let state = child
        .send(Query::<ConversationEntity, ConversationEntity> { read })
        .await
        .map_err(mailbox)??
        .reply;
    if state.info.is_none() {
        return Err(ActorError::NotFound {
            what: "conversation".into(),
        });
    }
    Ok(state)
}

/// Where a conversation's driver hands its facts.
fn sink(me: Addr<ProjectActor>, conversation_id: Uuid) -> Sink {
    std::sync::Arc::new(move |events| {
        let me = me.clone();
        Box::pin(async move {
            match me
                .send(LearnConversation {
                    conversation_id,
                    events,
                })
                .await
            {
                Ok(Ok(())) => true,
                Ok(Err(e)) => {
                    tracing::warn!(target: "rho::agent::conversation", error = %e, "a conversation fact was not journaled");
                    true
                }
                Err(_) => false,
            }
        })
    })
}

fn change(event: &ConversationEvent) -> (&'static str, Option<&str>, Option<&str>) {
    use ConversationEvent as E;
    match event {
        E::Started { .. } => ("started", None, None),
        E::Sent { original } => ("started", Some(&original.message_id), None),
        E::Text { message_id, text } => ("text", Some(message_id), Some(text)),
        E::Step { message_id, .. } => ("step", Some(message_id), None),
        E::Asked { message_id, .. } | E::Answered { message_id, .. } => {
            ("permission", Some(message_id), None)
        }
        E::Ended { message_id, .. } | E::Unknown { message_id, .. } => {
            ("ended", Some(message_id), None)
        }
        E::StopRequested { message_id } => ("state", Some(message_id), None),
        E::Session { .. } | E::NeedsChoice { .. } => ("state", None, None),
    }
}

/// Publishes `conversation.changed` for each event.
fn announce(act: &ProjectActor, id: Uuid, events: &[ConversationEvent]) {
    let Some(bus) = act.events() else { return };
    for e in events {
        let (change, message_id, delta) = change(e);
        let mut data = serde_json::json!({
            "conversationId": id.to_string(),
            "messageId": message_id,
            "seq": act.journal().last_assigned_seq(),
            "change": change,
        });
        if let Some(d) = delta {
            data["delta"] = serde_json::json!(d);
        }
        bus.publish("conversation.changed", Some(act.project_id()), data);
    }
}

impl ProjectActor {
    /// Journals a start or send, then hands the message to the driver once.
    fn accept_message(
        &mut self,
        id: Uuid,
        command: ConversationCommand,
        ctx: CommandContext,
        mut setup: Setup,
    ) -> ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>> {
        let child = self.children().get_or_new::<ConversationEntity>(id);
        setup.cwd = self.dir().to_path_buf();
        let reader = child.clone();
        let journaled = self.dispatch(child, Execute::<ConversationEntity> { command, ctx }, true);
        let read_back = journaled.then(move |res: Result<ConvReply, ActorError>, act, _| {
            async move {
                let reply = res?;
                Ok::<_, ActorError>((read(reader).await?, reply.message_id))
            }
            .into_actor(act)
        });
        Box::pin(read_back.map(move |res, act, actx| {
            let (state, message_id) = res?;
            let Some(m) = state.message(&message_id) else {
                return Ok((state, message_id));
            };
            if m.state == MessageState::Running {
                setup.resume = state.info.as_ref().and_then(|i| i.agent_session_id.clone());
                let text = prompt_text(&m.original);
                let sink = sink(actx.address(), id);
                if act
                    .owned
                    .conversations
                    .deliver(id, &message_id, text, setup, sink)
                {
                    let sent = ConversationEvent::Sent {
                        original: m.original.clone(),
                    };
                    announce(act, id, &[sent]);
                }
            }
            Ok((state, message_id))
        }))
    }
}

/// The prompt the Agent gets: the text, and the frozen contexts named as explicit context.
fn prompt_text(o: &Original) -> String {
    if o.contexts.is_empty() {
        return o.text.clone();
    }
    format!(
        "{}\n\nContext for this message (frozen Rho contexts; read them with Rho's tools): {}",
        o.text,
        o.contexts.join(", ")
    )
}

impl Handler<StartConversation> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>>;

    fn handle(&mut self, msg: StartConversation, _: &mut Context<Self>) -> Self::Result {
        let id = msg.info.conversation_id;
        let command = ConversationCommand::Start {
            info: Box::new(msg.info),
            original: msg.original,
        };
        self.accept_message(id, command, msg.ctx, msg.setup)
    }
}

impl Handler<SendMessage> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>>;

    fn handle(&mut self, msg: SendMessage, _: &mut Context<Self>) -> Self::Result {
        if self
            .children()
            .get::<ConversationEntity>(msg.conversation_id)
            .is_none()
        {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        }
        let command = ConversationCommand::Send {
            original: msg.original,
        };
        self.accept_message(msg.conversation_id, command, msg.ctx, msg.setup)
    }
}

impl Handler<LearnConversation> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(), ActorError>>;

    fn handle(&mut self, msg: LearnConversation, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let child = self.children().get_or_new::<ConversationEntity>(id);
        let events = msg.events.clone();
        let command = ConversationCommand::Learn { events: msg.events };
        let ctx = CommandContext::now(crate::Principal::System);
        Box::pin(
            self.dispatch(child, Execute::<ConversationEntity> { command, ctx }, false)
                .map(move |res, act, _| {
                    res?;
                    announce(act, id, &events);
                    Ok(())
                }),
        )
    }
}

impl Handler<ReadConversation> for ProjectActor {
    type Result = ResponseFuture<Result<ConversationEntity, ActorError>>;

    fn handle(&mut self, msg: ReadConversation, _: &mut Context<Self>) -> Self::Result {
        let child = self
            .children()
            .get::<ConversationEntity>(msg.conversation_id);
        let admitted = self.admit_read();
        Box::pin(async move {
            admitted?;
            match child {
                Some(c) => read(c).await,
                None => Err(ActorError::NotFound {
                    what: "conversation".into(),
                }),
            }
        })
    }
}

impl Handler<ListConversations> for ProjectActor {
    type Result = ResponseFuture<Result<Vec<ConversationEntity>, ActorError>>;

    fn handle(&mut self, _: ListConversations, _: &mut Context<Self>) -> Self::Result {
        let all = self.children().all::<ConversationEntity>();
        let admitted = self.admit_read();
        Box::pin(async move {
            admitted?;
            let mut out = Vec::new();
            for (_, child) in all {
                match read(child).await {
                    Ok(c) => out.push(c),
                    Err(ActorError::NotFound { .. }) => {}
                    Err(e) => return Err(e),
                }
            }
            out.sort_by_key(|c| std::cmp::Reverse(c.info.as_ref().map(|i| i.started_ms)));
            Ok(out)
        })
    }
}

impl Handler<AnswerPermission> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ConversationEntity, ActorError>>;

    fn handle(&mut self, msg: AnswerPermission, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let Some(child) = self.children().get::<ConversationEntity>(id) else {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        };
        let reader = child.clone();
        let checked = async move {
            let state = read(child).await?;
            let asked = state
                .messages
                .iter()
                .flat_map(|m| m.permissions.iter().map(move |p| (m, p)))
                .find(|(_, p)| p.request_id == msg.request_id);
            let Some((m, p)) = asked else {
                return Err(ActorError::NotFound {
                    what: "permission request".into(),
                });
            };
            if m.state != MessageState::Running || p.outcome.is_some() {
                return Err(ActorError::conflict(
                    "that permission request is no longer pending",
                ));
            }
            if !p.options.iter().any(|(o, _, _)| *o == msg.option_id) {
                return Err(ActorError::invalid(
                    "optionId",
                    "the Agent did not offer that option",
                ));
            }
            Ok(msg)
        };
        Box::pin(checked.into_actor(self).then(move |res, act, _| {
            let answered = match res {
                Err(e) => Err(e),
                Ok(msg) => {
                    let (done, rx) = tokio::sync::oneshot::channel();
                    let control = Control::Answer {
                        request_id: msg.request_id,
                        option_id: msg.option_id,
                        by: msg.by,
                        done,
                    };
                    if act.owned.conversations.send(id, control) {
                        Ok(rx)
                    } else {
                        Err(ActorError::conflict("no Agent session runs this message"))
                    }
                }
            };
            async move {
                let rx = answered?;
                rx.await.map_err(|_| {
                    ActorError::conflict("that permission request is no longer pending")
                })??;
                read(reader).await
            }
            .into_actor(act)
        }))
    }
}

impl Handler<StopConversation> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>>;

    fn handle(&mut self, msg: StopConversation, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let Some(child) = self.children().get::<ConversationEntity>(id) else {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        };
        let reader = child.clone();
        let running = async move {
            let state = read(child).await?;
            state
                .running()
                .map(|m| m.original.message_id.clone())
                .ok_or_else(|| ActorError::conflict("no message is running"))
        };
        Box::pin(running.into_actor(self).then(move |res, act, _| {
            let sent = res.and_then(|message_id| {
                let (done, rx) = tokio::sync::oneshot::channel();
                if act.owned.conversations.send(id, Control::Stop { done }) {
                    Ok((message_id, rx))
                } else {
                    Err(ActorError::conflict("no Agent session runs this message"))
                }
            });
            async move {
                let (message_id, rx) = sent?;
                let _ = tokio::time::timeout(msg.bound, rx).await;
                Ok((read(reader).await?, message_id))
            }
            .into_actor(act)
        }))
    }
}
