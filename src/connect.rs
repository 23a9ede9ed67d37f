//! Agent access wiring of a service start: the `AgentAccess` actor the handlers use, and `--agent NAME --project FOLDER` at start.

use crate::start::runtimes::Runtimes;
use actix::{Actor, Addr};
use rho_actors::agent::access::{AccessConfig, AgentAccess, AgentSetup, ConnectAgent};
use rho_actors::agent::grants::GrantRegistry;
use rho_actors::service::ListProjects;
use rho_api::handlers::Services;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Starts Agent access: the grant store, the state folder, the launcher and the client CLIs,
/// owned by one actor of this service run.
pub(crate) fn start(
    state: &Path,
    runtimes: &Runtimes,
    grants: GrantRegistry,
    config: AccessConfig,
) -> Addr<AgentAccess> {
    let exe = std::env::current_exe()
        .and_then(|p| p.canonicalize())
        .unwrap_or_else(|_| PathBuf::from("rho"));
    let setup = AgentSetup {
        grants,
        state_dir: state.to_path_buf(),
        exe,
        claude: runtimes.claude.path.clone(),
        codex: runtimes.codex.path.clone(),
    };
    AgentAccess::new(setup, config).start()
}

/// `--agent NAME --project FOLDER`: grants the project in FOLDER (below the root) to the Agent
/// and runs its own `mcp add`; the outcome is logged (the service keeps running either way).
pub(crate) async fn at_start(services: Arc<Services>, agent: String, folder: PathBuf) {
    let wanted = services.root.join(&folder);
    let wanted = wanted.canonicalize().unwrap_or(wanted);
    let listing = services
        .service
        .send(ListProjects)
        .await
        .unwrap_or_default();
    let Some(project) = listing.iter().find(|p| p.dir == wanted).map(|p| p.id) else {
        tracing::error!(folder = %folder.display(), "--agent: no registered project in that folder below the root");
        return;
    };
    let Some(access) = &services.agent else {
        tracing::error!(%agent, "--agent: Agent access is not set up in this service");
        return;
    };
    let outcome = access
        .send(ConnectAgent {
            project,
            agent: agent.clone(),
        })
        .await;
    match outcome {
        Ok(Ok(_)) => {
            tracing::info!(%agent, project = %project, "--agent: the Agent client registered the project")
        }
        Ok(Err(e)) => {
            tracing::error!(%agent, project = %project, error = %e, "--agent: connecting the Agent failed")
        }
        Err(e) => {
            tracing::error!(%agent, project = %project, error = %e, "--agent: connecting the Agent failed")
        }
    }
}
