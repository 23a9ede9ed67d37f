//! The `AgentAccess` actor: owns the grant store, the private connection files and the client CLIs of one service run.
//!
//! Grant changes (mint, replace, revoke) and their connection files are serialized by this
//! actor: each runs as an atomic handler (no other message is taken until it is done), its
//! registry write and file I/O on a blocking thread. So a connection file never holds a
//! replaced token, and two services in one process share nothing. Client CLI runs are not
//! atomic (they may take 20 s): `session.connect` sends this actor's own grant and revoke
//! messages around the bounded run.

mod announce;
mod client;
mod client_run;
mod connect;
mod error;
mod files;
mod grant;
mod lookup;
mod messages;
mod setup;

pub use client::{CLIENT_OUTPUT, CLIENT_TIMEOUT};
pub use client_run::ClientRun;
pub use error::AccessError;
pub use messages::{
    AgentView, ConnectAgent, Connected, GrantAccess, Granted, Instructions, ProjectGrants,
    ProjectRef, ReadInstructions, RevokeAccess,
};
pub use setup::AgentSetup;

use crate::owners::Selection;
use crate::service::{ListProjects, ProjectListing, ServiceActor};
use actix::prelude::*;
use std::path::PathBuf;

/// What Agent access needs besides [`AgentSetup`]: the service's projects and the facts of this run.
#[derive(Clone)]
pub struct AccessConfig {
    pub service: Addr<ServiceActor>,
    /// Canonical projects folder (`folder` of `session.grant` is below it).
    pub root: PathBuf,
    pub selection: Selection,
    /// `layeredGrantLimits.maxMethods`.
    pub max_methods: u64,
    /// The service's own URL, written into connection files.
    pub url: String,
    /// Where `grant.changed` is announced (`None` in tests that need no events).
    pub events: Option<crate::events::EventBus>,
}

/// Agent access of one service run.
pub struct AgentAccess {
    setup: AgentSetup,
    config: AccessConfig,
}

impl AgentAccess {
    pub fn new(setup: AgentSetup, config: AccessConfig) -> AgentAccess {
        AgentAccess { setup, config }
    }
}

impl Actor for AgentAccess {
    type Context = Context<Self>;
}

/// The registered projects, as the service actor lists them.
async fn listing(service: &Addr<ServiceActor>) -> Result<Vec<ProjectListing>, AccessError> {
    service
        .send(ListProjects)
        .await
        .map_err(|e| AccessError::Internal(format!("actor mailbox: {e}")))
}

/// A registered project's name and folder; outside the registry it is `not_found`.
async fn project_facts(
    service: &Addr<ServiceActor>,
    id: uuid::Uuid,
) -> Result<(String, PathBuf), AccessError> {
    listing(service)
        .await?
        .into_iter()
        .find(|p| p.id == id)
        .map(|p| (p.name, p.dir))
        .ok_or_else(|| AccessError::NotFound {
            what: "project".into(),
        })
}

/// Runs `f` on a blocking thread.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, AccessError> + Send + 'static,
) -> Result<T, AccessError> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(AccessError::Internal(e.to_string())))
}

#[cfg(test)]
mod tests;
