//! What the panel reads of a conversation's live session besides its record, and what it
//! answers there: `/mcp` (the MCP servers as Rho's own agent's session runs them), an open
//! form's or sampling question's details, and the person's answer to it (asked of its
//! driver, bounded); the palettes' MCP runtime; a call card's stored image.

use super::control::{Control, Setup};
use super::entity::{ConversationEntity, MessageState};
use super::handlers::{answer_live, read};
use super::launch::Backend;
use super::ledger::CardImage;
use super::surfaces_contract::QuestionView;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_mcp::report::ServerReport;
use std::time::Duration;
use uuid::Uuid;

/// How long `/mcp` waits for a driver that is busy starting its session.
const REPORT_WAIT: Duration = Duration::from_secs(5);
/// How long a palette waits for the session its driver opens (its MCP servers starting).
pub const OPEN_WAIT: Duration = Duration::from_secs(30);

/// Asks the conversation's driver with the control `ask` makes and waits (bounded) for its
/// answer; `None` when no driver runs, it answers nothing, or not in time.
fn ask_driver<T: Send + 'static>(
    act: &ProjectActor,
    id: Uuid,
    ask: impl FnOnce(tokio::sync::oneshot::Sender<Option<T>>) -> Control,
) -> impl std::future::Future<Output = Option<T>> + Send + 'static {
    let (done, rx) = tokio::sync::oneshot::channel();
    let live = act.owned.conversations.send(id, ask(done));
    async move {
        if !live {
            return None;
        }
        tokio::time::timeout(REPORT_WAIT, rx)
            .await
            .ok()
            .and_then(Result::ok)
            .flatten()
    }
}

/// `not_found` unless the project holds conversation `id`.
fn known(act: &mut ProjectActor, id: Uuid) -> Result<(), ActorError> {
    match act.children().get::<ConversationEntity>(id) {
        Some(_) => Ok(()),
        None => Err(ActorError::NotFound {
            what: "conversation".into(),
        }),
    }
}

/// `conversation.mcp`: the conversation's backend, and its live session's servers (`None`
/// when no session of Rho's own agent runs).
#[derive(Message)]
#[rtype(result = "Result<(Backend, Option<Vec<ServerReport>>), ActorError>")]
pub struct ConversationServers {
    pub conversation_id: Uuid,
}

impl Handler<ConversationServers> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(Backend, Option<Vec<ServerReport>>), ActorError>>;

    fn handle(&mut self, msg: ConversationServers, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let Some(child) = self.children().get::<ConversationEntity>(id) else {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        };
        let reports = ask_driver(self, id, |done| Control::Servers { done });
        Box::pin(
            async move {
                let state = read(child).await?;
                let backend = state.info.as_ref().map_or(Backend::Rho, |i| i.backend);
                Ok((backend, reports.await))
            }
            .into_actor(self),
        )
    }
}

/// `conversation.question`: the details of an open form or sampling question.
#[derive(Message)]
#[rtype(result = "Result<QuestionView, ActorError>")]
pub struct ConversationQuestion {
    pub conversation_id: Uuid,
    pub request_id: String,
}

/// `conversation.answer`: the person's answer to a form or sampling question; the
/// conversation as it is once the answer is journaled.
#[derive(Message)]
#[rtype(result = "Result<ConversationEntity, ActorError>")]
pub struct AnswerQuestion {
    pub conversation_id: Uuid,
    pub request_id: String,
    pub action: String,
    pub content: serde_json::Value,
    pub by: String,
}

fn gone() -> ActorError {
    ActorError::conflict("that question is no longer open")
}

/// The question `request_id` is asked on a running message and not answered yet.
fn pending(state: &ConversationEntity, request_id: &str) -> Result<(), ActorError> {
    let asked = state
        .messages
        .iter()
        .flat_map(|m| m.permissions.iter().map(move |p| (m, p)))
        .find(|(_, p)| p.request_id == request_id);
    let Some((m, p)) = asked else {
        return Err(ActorError::NotFound {
            what: "question".into(),
        });
    };
    if super::questions::kind_of(request_id) == "permission" {
        return Err(ActorError::invalid(
            "requestId",
            "that request is the Agent's permission: answer it with conversation.permission",
        ));
    }
    if m.state != MessageState::Running || p.outcome.is_some() {
        return Err(gone());
    }
    Ok(())
}

impl Handler<ConversationQuestion> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<QuestionView, ActorError>>;

    fn handle(&mut self, msg: ConversationQuestion, _: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        let Some(child) = self.children().get::<ConversationEntity>(id) else {
            return Box::pin(fut::ready(Err(ActorError::NotFound {
                what: "conversation".into(),
            })));
        };
        let checked = async move {
            pending(&read(child).await?, &msg.request_id)?;
            Ok::<String, ActorError>(msg.request_id)
        };
        Box::pin(checked.into_actor(self).then(move |res, act, _| {
            let asked = res.map(|request_id| {
                ask_driver(act, id, |done| Control::Question { request_id, done })
            });
            async move { asked?.await.ok_or_else(gone) }.into_actor(act)
        }))
    }
}

impl Handler<AnswerQuestion> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ConversationEntity, ActorError>>;

    fn handle(&mut self, msg: AnswerQuestion, _: &mut Context<Self>) -> Self::Result {
        let request_id = msg.request_id.clone();
        let check = move |state: &ConversationEntity| pending(state, &request_id);
        let control = move |done| Control::Reply {
            request_id: msg.request_id,
            action: msg.action,
            content: msg.content,
            by: msg.by,
            done,
        };
        answer_live(self, msg.conversation_id, check, control, gone, gone)
    }
}

/// What [`ConversationRuntime`] found.
pub enum RuntimeAnswer {
    /// No driver runs for the conversation (Rho restarted since its last message): asked again
    /// with a setup, one is started.
    NoDriver,
    /// The MCP runtime of its session of Rho's own agent (`None`: none runs, it has no servers,
    /// or it did not open within [`OPEN_WAIT`]).
    Live(Option<std::sync::Arc<rho_mcp::runtime::McpRuntime>>),
}

/// The MCP runtime of the conversation's session of Rho's own agent, for the panel's prompts,
/// suggestions and resources. A driver of Rho's own agent without a session opens one (its MCP
/// servers start; no message is needed); with `setup`, a driver is started when none runs.
#[derive(Message)]
#[rtype(result = "Result<RuntimeAnswer, ActorError>")]
pub struct ConversationRuntime {
    pub conversation_id: Uuid,
    pub setup: Option<Setup>,
}

impl Handler<ConversationRuntime> for ProjectActor {
    type Result = ResponseFuture<Result<RuntimeAnswer, ActorError>>;

    fn handle(&mut self, msg: ConversationRuntime, ctx: &mut Context<Self>) -> Self::Result {
        let id = msg.conversation_id;
        if let Err(e) = known(self, id) {
            return Box::pin(async move { Err(e) });
        }
        let (done, rx) = tokio::sync::oneshot::channel();
        let control = Control::Runtime { done };
        let sent = match msg.setup {
            _ if self.owned.conversations.runs(id) => self.owned.conversations.send(id, control),
            None => return Box::pin(async { Ok(RuntimeAnswer::NoDriver) }),
            Some(mut setup) => {
                setup.cwd = self.dir().to_path_buf();
                let port = self.port(ctx.address(), id);
                self.owned
                    .conversations
                    .send_starting(id, control, setup, port)
            }
        };
        Box::pin(async move {
            if !sent {
                return Ok(RuntimeAnswer::Live(None));
            }
            let rt = tokio::time::timeout(OPEN_WAIT, rx).await;
            Ok(RuntimeAnswer::Live(rt.ok().and_then(Result::ok).flatten()))
        })
    }
}

/// `conversation.image`: the image a call card of Rho's own agent shows, read from the
/// project's content-addressed store by its journaled reference (so it outlives the session and
/// a restart of Rho; decision 0813). `None`: the card has none stored.
#[derive(Message)]
#[rtype(result = "Result<Option<(CardImage, rho_mcp::render::ImageAsset)>, ActorError>")]
pub struct ConversationImage {
    pub conversation_id: Uuid,
    pub step_id: String,
}

impl Handler<ConversationImage> for ProjectActor {
    type Result =
        ResponseFuture<Result<Option<(CardImage, rho_mcp::render::ImageAsset)>, ActorError>>;

    fn handle(&mut self, msg: ConversationImage, _: &mut Context<Self>) -> Self::Result {
        let Some(child) = self
            .children()
            .get::<ConversationEntity>(msg.conversation_id)
        else {
            return Box::pin(async {
                Err(ActorError::NotFound {
                    what: "conversation".into(),
                })
            });
        };
        let dir = self.dir().to_path_buf();
        Box::pin(async move {
            let state = read(child).await?;
            let Some(image) = state
                .messages
                .iter()
                .flat_map(|m| m.images.iter())
                .find(|i| i.step_id == msg.step_id)
                .cloned()
            else {
                return Ok(None);
            };
            let loaded = tokio::task::spawn_blocking(move || {
                super::card_image::load_image(&dir, &image).map(|asset| (image, asset))
            })
            .await
            .map_err(|e| ActorError::internal(e.to_string()))??;
            Ok(Some(loaded))
        })
    }
}
