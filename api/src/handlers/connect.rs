//! `session.connect`: parses, sends one `ConnectAgent` to the `AgentAccess` actor (grant, the client's own bounded `mcp add`) and maps the reply.

use super::sessions::{access, grant_reply};
use super::{mailbox, project_id, spec, Services};
use crate::envelope::ApiError;
use crate::ops::{Ctx, DuplicateOperation, OpTable};
use rho_actors::agent::access::{ClientRun, ConnectAgent};
use rho_actors::agent::session_contract::ConnectRequest;
use serde_json::{json, Value};
use std::sync::Arc;

/// The wire form of one bounded client call.
pub(super) fn client_json(run: &ClientRun) -> Value {
    json!({"command": run.command.display().to_string(), "args": run.args, "exitCode": run.exit_code,
        "output": run.output, "timedOut": run.timed_out, "truncated": run.truncated})
}

async fn connect(s: &Services, req: ConnectRequest) -> Result<Value, ApiError> {
    let project = project_id("projectId", &req.project_id)?;
    let c = access(s)?
        .send(ConnectAgent {
            project,
            agent: req.agent,
        })
        .await
        .map_err(mailbox)??;
    Ok(
        json!({"projectId": c.project.to_string(), "agent": c.agent, "session": c.agent,
        "grant": grant_reply(c.grant), "client": client_json(&c.client), "connected": true}),
    )
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
