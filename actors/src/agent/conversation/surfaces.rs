//! What the panel reads of a conversation's live session besides its record: `/mcp`, the MCP
//! servers as Rho's own agent's session runs them (asked of its driver, bounded).

use super::control::Control;
use super::entity::ConversationEntity;
use super::handlers::read;
use super::launch::Backend;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_mcp::report::ServerReport;
use std::time::Duration;
use uuid::Uuid;

/// How long `/mcp` waits for a driver that is busy starting its session.
const REPORT_WAIT: Duration = Duration::from_secs(5);

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
        let (done, rx) = tokio::sync::oneshot::channel();
        let live = self.owned.conversations.send(id, Control::Servers { done });
        Box::pin(
            async move {
                let state = read(child).await?;
                let backend = state.info.as_ref().map_or(Backend::Rho, |i| i.backend);
                let reports = match live {
                    true => tokio::time::timeout(REPORT_WAIT, rx)
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .flatten(),
                    false => None,
                };
                Ok((backend, reports))
            }
            .into_actor(self),
        )
    }
}
