//! The project actor's conversation messages: start and send (journaled before the Agent sees
//! them, then handed to the driver exactly once; the oldest idle conversation goes to keep
//! `conversations.maxConversations`), learn (the driver's facts, announced as
//! `conversation.changed`), read, list, permission, stop and decide.

use super::driver::{Control, Setup};
use super::entity::{
    ConvReply, ConversationCommand, ConversationEntity, ConversationEvent, DecisionRecord, Info,
    MessageState, Original,
};
pub use super::port::LearnConversation;
use super::port::ServicePort;
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
    /// The frozen contexts' content given to the Agent with the text.
    pub context: Option<String>,
}

/// `conversation.send`: the next message of a conversation.
#[derive(Message)]
#[rtype(result = "Result<(ConversationEntity, String), ActorError>")]
pub struct SendMessage {
    pub conversation_id: Uuid,
    pub original: Original,
    pub ctx: CommandContext,
    pub setup: Setup,
    pub context: Option<String>,
    /// Continue a conversation that needs a choice in a fresh Agent session.
    pub fresh: bool,
}

/// `conversation.decide`: answers the conversation and the decision's id.
#[derive(Message)]
#[rtype(result = "Result<(ConversationEntity, String), ActorError>")]
pub struct DecideMessage {
    pub conversation_id: Uuid,
    pub message_id: String,
    pub decision: DecisionRecord,
    pub ctx: CommandContext,
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

pub(super) async fn read(
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
    state.check_kept()?;
    Ok(state)
}

/// A conversation's state, removed ones included (`None`: no such conversation).
async fn peek(
    child: Addr<crate::child::EntityActor<ConversationEntity>>,
) -> Result<ConversationEntity, ActorError> {
    let read = Box::new(|e: &ConversationEntity| e.clone());
    Ok(child
        .send(Query::<ConversationEntity, ConversationEntity> { read })
        .await
        .map_err(mailbox)??
        .reply)
}

impl ProjectActor {
    /// Where conversation `id`'s driver hands its facts and asks for files and buffers.
    pub(super) fn port(&self, me: Addr<ProjectActor>, id: Uuid) -> std::sync::Arc<ServicePort> {
        let limits = self.config_limits();
        std::sync::Arc::new(ServicePort {
            me,
            conversation_id: id,
            principal: super::port::principal(id),
            dir: self.dir().to_path_buf(),
            max_file_bytes: limits.resources.max_file_bytes,
            bounds: crate::files::PutBounds {
                max_resources: limits.resources.max_resources,
                max_artifact_bytes: limits.resources.max_artifact_bytes,
            },
            files: self
                .config()
                .selection
                .is_available(crate::owners::Owner::Files),
        })
    }
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
        E::StopRequested { message_id }
        | E::Cuts { message_id, .. }
        | E::Kept { message_id, .. } => ("state", Some(message_id), None),
        E::Decided { message_id, .. } => ("decision", Some(message_id), None),
        E::Called { message_id, .. } | E::Imaged { message_id, .. } => {
            ("step", Some(message_id), None)
        }
        E::Retried { message_id, .. } => ("state", Some(message_id), None),
        E::Spent { message_id, .. } => ("state", message_id.as_deref(), None),
        E::Session { .. }
        | E::NeedsChoice { .. }
        | E::Fresh { .. }
        | E::Dropped { .. }
        | E::Removed { .. }
        | E::Servers { .. } => ("state", None, None),
    }
}

/// Publishes `conversation.changed` for each event.
fn announce(act: &ProjectActor, id: Uuid, events: &[ConversationEvent]) {
    for e in events {
        let (change, message_id, delta) = change(e);
        announce_one(act, id, change, message_id, delta);
    }
}

/// Publishes one `conversation.changed`.
fn announce_one(
    act: &ProjectActor,
    id: Uuid,
    change: &str,
    message_id: Option<&str>,
    delta: Option<&str>,
) {
    let Some(bus) = act.events() else { return };
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

impl ProjectActor {
    /// Journals a start or send, then hands the message to the driver once.
    fn accept_message(
        &mut self,
        id: Uuid,
        command: ConversationCommand,
        ctx: CommandContext,
        mut setup: Setup,
        context: Option<String>,
        fresh: bool,
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
                let text = prompt_text(&state, m, context.as_deref(), fresh);
                let history = native_history(&state, m, &setup);
                let port = act.port(actx.address(), id);
                if act
                    .owned
                    .conversations
                    .deliver(id, &message_id, text, history, setup, port)
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

/// Rho's own agent opening a session in a conversation that had one (Rho restarted, or the
/// session ended): the summary of the earlier messages, given before the text.
fn native_history(
    state: &ConversationEntity,
    m: &super::entity::Message,
    setup: &Setup,
) -> Option<String> {
    if setup.backend != super::launch::Backend::Rho {
        return None;
    }
    let earlier: Vec<_> = state
        .messages
        .iter()
        .take_while(|e| e.original.message_id != m.original.message_id)
        .collect();
    (!earlier.is_empty()).then(|| super::summary::summary(&earlier))
}

/// The prompt the Agent gets: after a fresh session was chosen, a summary of the earlier
/// messages first; then the text; then the frozen contexts' content as explicit context.
fn prompt_text(
    state: &ConversationEntity,
    m: &super::entity::Message,
    context: Option<&str>,
    fresh: bool,
) -> String {
    let mut out = String::new();
    let earlier: Vec<_> = state
        .messages
        .iter()
        .take_while(|e| e.original.message_id != m.original.message_id)
        .collect();
    if fresh && !earlier.is_empty() {
        out.push_str(&super::summary::summary(&earlier));
        out.push_str("\n\n");
    }
    out.push_str(&m.original.text);
    if let Some(c) = context {
        out.push_str("\n\n");
        out.push_str(c);
    }
    out
}

impl Handler<StartConversation> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>>;

    fn handle(&mut self, msg: StartConversation, _: &mut Context<Self>) -> Self::Result {
        let id = msg.info.conversation_id;
        let command = ConversationCommand::Start {
            info: Box::new(msg.info),
            original: msg.original,
        };
        let max = self.config_limits().conversations.max_conversations;
        let all = self.children().all::<ConversationEntity>();
        // A retried start finds its own conversation: its identity answers, nothing goes.
        let exists = all.iter().any(|(cid, _)| *cid == id);
        let room = async move {
            if exists {
                return Ok(None);
            }
            let mut kept = Vec::new();
            for (cid, child) in all {
                let c = peek(child.clone()).await?;
                if c.info.is_some() && c.removed.is_none() {
                    kept.push((c, cid, child));
                }
            }
            if (kept.len() as u64) < max.max(1) {
                return Ok(None);
            }
            kept.retain(|(c, _, _)| c.running().is_none());
            kept.sort_by_key(|(c, _, _)| c.info.as_ref().map(|i| i.started_ms));
            match kept.into_iter().next() {
                Some((_, cid, child)) => Ok(Some((cid, child))),
                None => Err(ActorError::Limit {
                    limit: "conversations.maxConversations".into(),
                    value: max,
                }),
            }
        };
        let (ctx, setup, context) = (msg.ctx, msg.setup, msg.context);
        Box::pin(
            room.into_actor(self)
                .then(move |room, act, _| -> ResponseActFuture<Self, _> {
                    match room {
                        Err(e) => Box::pin(fut::ready(Err(e))),
                        Ok(None) => act.accept_message(id, command, ctx, setup, context, false),
                        Ok(Some((gone, child))) => {
                            let remove = Execute::<ConversationEntity> {
                                command: ConversationCommand::Remove {
                                    limit: "conversations.maxConversations".into(),
                                },
                                ctx: CommandContext::now(crate::Principal::System),
                            };
                            let removed = act.dispatch(child, remove, true);
                            Box::pin(removed.then(
                                move |res: Result<ConvReply, ActorError>, act, _| {
                                    if res.is_ok() {
                                        let event = ConversationEvent::Removed {
                                            limit: "conversations.maxConversations".into(),
                                        };
                                        announce(act, gone, &[event]);
                                    }
                                    act.accept_message(id, command, ctx, setup, context, false)
                                },
                            ))
                        }
                    }
                }),
        )
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
            max_messages: self.config_limits().conversations.max_messages,
            fresh: msg.fresh,
        };
        self.accept_message(
            msg.conversation_id,
            command,
            msg.ctx,
            msg.setup,
            msg.context,
            msg.fresh,
        )
    }
}

impl Handler<DecideMessage> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(ConversationEntity, String), ActorError>>;

    fn handle(&mut self, msg: DecideMessage, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let Some(child) = self.children().get::<ConversationEntity>(id) else {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        };
        let reader = child.clone();
        let message_id = msg.message_id.clone();
        let command = ConversationCommand::Decide {
            message_id: msg.message_id,
            decision: msg.decision,
        };
        let decided = self.dispatch(
            child,
            Execute::<ConversationEntity> {
                command,
                ctx: msg.ctx,
            },
            true,
        );
        Box::pin(
            decided.then(move |res: Result<ConvReply, ActorError>, act, _| {
                let announced = res.map(|reply| {
                    announce_one(act, id, "decision", Some(&message_id), None);
                    reply.message_id
                });
                async move {
                    let decision_id = announced?;
                    Ok((read(reader).await?, decision_id))
                }
                .into_actor(act)
            }),
        )
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
                let c = peek(child).await?;
                if c.info.is_some() {
                    out.push(c);
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
        let (request_id, option_id) = (msg.request_id.clone(), msg.option_id.clone());
        let check = move |state: &ConversationEntity| {
            let asked = state
                .messages
                .iter()
                .flat_map(|m| m.permissions.iter().map(move |p| (m, p)))
                .find(|(_, p)| p.request_id == request_id);
            let Some((m, p)) = asked else {
                return Err(ActorError::NotFound {
                    what: "permission request".into(),
                });
            };
            if m.state != MessageState::Running || p.outcome.is_some() {
                return Err(not_pending());
            }
            if !p.options.iter().any(|(o, _, _)| *o == option_id) {
                return Err(ActorError::invalid(
                    "optionId",
                    "the Agent did not offer that option",
                ));
            }
            Ok(())
        };
        let control = move |done| Control::Answer {
            request_id: msg.request_id,
            option_id: msg.option_id,
            by: msg.by,
            done,
        };
        let no_session: fn() -> ActorError =
            || ActorError::conflict("no Agent session runs this message");
        answer_live(
            self,
            msg.conversation_id,
            check,
            control,
            no_session,
            not_pending,
        )
    }
}

fn not_pending() -> ActorError {
    ActorError::conflict("that permission request is no longer pending")
}

/// Answers what a running message asked (a permission, a server's question): `check` the
/// record, hand the conversation's driver the `control` built around its `done`, and read the
/// record back once the driver took the answer. `unsent` is the error when no driver takes it,
/// `dropped` when the driver drops it unanswered.
pub(super) fn answer_live(
    act: &mut ProjectActor,
    id: Uuid,
    check: impl FnOnce(&ConversationEntity) -> Result<(), ActorError> + 'static,
    control: impl FnOnce(tokio::sync::oneshot::Sender<Result<(), ActorError>>) -> Control + 'static,
    unsent: fn() -> ActorError,
    dropped: fn() -> ActorError,
) -> ResponseActFuture<ProjectActor, Result<ConversationEntity, ActorError>> {
    let Some(child) = act.children().get::<ConversationEntity>(id) else {
        return Box::pin(fut::ready(Err(ActorError::NotFound {
            what: "conversation".into(),
        })));
    };
    let reader = child.clone();
    let checked = async move { check(&read(child).await?) };
    Box::pin(checked.into_actor(act).then(move |res, act, _| {
        let answered = res.and_then(|()| {
            let (done, rx) = tokio::sync::oneshot::channel();
            act.owned
                .conversations
                .send(id, control(done))
                .then_some(rx)
                .ok_or_else(unsent)
        });
        async move {
            answered?.await.map_err(|_| dropped())??;
            read(reader).await
        }
        .into_actor(act)
    }))
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
