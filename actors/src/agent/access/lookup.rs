//! Reads of Agent access: `ReadInstructions`, an Agent caller's `AgentView`, and a project's valid grants (`ProjectGrants`).

use super::error::AccessError;
use super::messages::{AgentView, Instructions, ProjectGrants, ReadInstructions};
use super::{project_facts, AgentAccess};
use crate::agent::grants::GrantRecord;
use actix::prelude::*;

impl Handler<ReadInstructions> for AgentAccess {
    type Result = ResponseFuture<Result<Instructions, AccessError>>;

    fn handle(&mut self, msg: ReadInstructions, _: &mut Context<Self>) -> Self::Result {
        let setup = self.setup.clone();
        let service = self.config.service.clone();
        Box::pin(async move {
            let ReadInstructions { project, session } = msg;
            let (project_name, _) = project_facts(&service, project).await?;
            let file = setup.connection_file(project, &session);
            let granted = setup
                .grants
                .get(project, &session)
                .is_some_and(|g| g.valid_at(chrono::Utc::now().timestamp_millis()));
            let conn = setup.state_dir.join("connection.json");
            Ok(Instructions {
                project_name,
                grant_command: format!(
                    "{} --grant {} --project-id {project} --session {session}",
                    setup.exe.display(),
                    conn.display()
                ),
                mcp: setup.mcp_entry(&file),
                session,
                granted,
            })
        })
    }
}

impl Handler<AgentView> for AgentAccess {
    type Result = ResponseFuture<Result<(String, Option<GrantRecord>), AccessError>>;

    fn handle(&mut self, msg: AgentView, _: &mut Context<Self>) -> Self::Result {
        let grants = self.setup.grants.clone();
        let service = self.config.service.clone();
        Box::pin(async move {
            let (project_name, _) = project_facts(&service, msg.project).await?;
            let grant = grants
                .get(msg.project, &msg.session)
                .filter(|g| g.valid_at(chrono::Utc::now().timestamp_millis()));
            Ok((project_name, grant))
        })
    }
}

impl Handler<ProjectGrants> for AgentAccess {
    type Result = MessageResult<ProjectGrants>;

    fn handle(&mut self, msg: ProjectGrants, _: &mut Context<Self>) -> Self::Result {
        let now = chrono::Utc::now().timestamp_millis();
        MessageResult(
            self.setup
                .grants
                .of_project(msg.project)
                .into_iter()
                .filter(|g| g.valid_at(now))
                .collect(),
        )
    }
}
