//! `ConnectAgent`: grant a project to Claude Code or Codex through this actor's own grant message, run the client's `mcp add` bounded, and revoke a new grant it refused.

use super::error::AccessError;
use super::messages::{ConnectAgent, Connected, GrantAccess, ProjectRef, RevokeAccess};
use super::{client, project_facts, AgentAccess};
use actix::prelude::*;

/// The actor's reply to one of its own messages.
fn flatten<T>(res: Result<Result<T, AccessError>, MailboxError>) -> Result<T, AccessError> {
    res.map_err(|e| AccessError::Internal(format!("actor mailbox: {e}")))?
}

impl Handler<ConnectAgent> for AgentAccess {
    type Result = ResponseFuture<Result<Connected, AccessError>>;

    /// Steps: 1. the project's folder, 2. the client's command line, 3. the grant (atomic, in
    /// this actor), 4. the bounded client run on a blocking thread, 5. on refusal the revocation
    /// of a grant this call created.
    fn handle(&mut self, msg: ConnectAgent, ctx: &mut Context<Self>) -> Self::Result {
        let me = ctx.address();
        let setup = self.setup.clone();
        let service = self.config.service.clone();
        Box::pin(async move {
            let ConnectAgent { project, agent } = msg;
            let (_, dir) = project_facts(&service, project).await?;
            let file = setup.connection_file(project, &agent);
            let (program, args) = client::call(
                &agent,
                setup.claude.as_ref(),
                setup.codex.as_ref(),
                &setup.exe,
                &file,
            )?;
            let now = chrono::Utc::now().timestamp_millis();
            let existed = setup
                .grants
                .get(project, &agent)
                .is_some_and(|g| g.valid_at(now));
            let grant = flatten(
                me.send(GrantAccess {
                    project: ProjectRef::Id(project),
                    session: agent.clone(),
                    methods: None,
                    profile: None,
                    expires_at: None,
                })
                .await,
            )?;
            let run = tokio::task::spawn_blocking(move || client::run(program, args, &dir))
                .await
                .map_err(|e| AccessError::Internal(e.to_string()))?;
            if run.succeeded() {
                tracing::info!(project = %project, %agent, "Agent client registered the project");
                return Ok(Connected {
                    project,
                    agent,
                    grant,
                    client: run,
                });
            }
            let removed = !existed
                && flatten(
                    me.send(RevokeAccess {
                        project,
                        session: agent.clone(),
                    })
                    .await,
                )?;
            tracing::warn!(project = %project, %agent, exit = ?run.exit_code, timed_out = run.timed_out, removed, "the Agent client refused the connection");
            Err(AccessError::Refused {
                agent,
                client: run,
                grant_kept: !removed,
            })
        })
    }
}
