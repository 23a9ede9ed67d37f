//! `session.connect`: parses, sends one `ConnectAgent` to the `AgentAccess` actor (grant, the client's own bounded `mcp add`) and maps the reply.

use super::services::{mailbox, project_id, spec, Services};
use super::sessions::{access, grant_reply};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::access::ConnectAgent;
use rho_actors::agent::contract::session::{ConnectReply, ConnectRequest};
use std::sync::Arc;

async fn connect(s: &Services, req: ConnectRequest) -> Result<ConnectReply, ApiError> {
    let project = project_id("projectId", &req.project_id)?;
    let c = access(s)?
        .send(ConnectAgent {
            project,
            agent: req.agent,
        })
        .await
        .map_err(mailbox)??;
    Ok(ConnectReply {
        client: c.client.view(),
        connected: true,
        grant: grant_reply(c.grant),
        project_id: c.project.to_string(),
        session: c.agent.clone(),
        agent: c.agent,
    })
}

pub(super) fn register(
    table: &mut OpTable,
    services: &Arc<Services>,
) -> Result<(), DuplicateOperation> {
    let s = services.clone();
    table.register(
        spec("session.connect"),
        move |_ctx: Ctx, req: ConnectRequest| {
            let s = s.clone();
            async move { connect(&s, req).await }
        },
    )?;
    Ok(())
}
