//! Shared helpers of the actor tests: configs, contexts and a state check that knows what was acknowledged.

#![allow(dead_code, unreachable_pub)]

use rho_actors::entity::CommandContext;
use rho_actors::identity::input_digest;
use rho_actors::open::ProjectConfig;
use rho_actors::Principal;

pub fn config() -> ProjectConfig {
    ProjectConfig {
        holder: format!("pid {} (test)", std::process::id()),
        ..ProjectConfig::default()
    }
}

pub fn ctx(principal: Principal) -> CommandContext {
    CommandContext {
        principal,
        time_ms: 1_700_000_000_000,
        identity: None,
    }
}

pub fn ctx_with(change_id: &str, input: &serde_json::Value) -> CommandContext {
    CommandContext {
        principal: Principal::Operator,
        time_ms: 1_700_000_000_000,
        identity: Some((change_id.to_string(), input_digest(input, "changeId"))),
    }
}

/// A projects root and a state folder for one test.
pub struct Env {
    pub root: tempfile::TempDir,
    pub state: tempfile::TempDir,
}

impl Default for Env {
    fn default() -> Self {
        Env::new()
    }
}

impl Env {
    pub fn new() -> Env {
        Env {
            root: tempfile::tempdir().unwrap(),
            state: tempfile::tempdir().unwrap(),
        }
    }

    /// Starts a service over this root with the registry in this state (call inside a System).
    pub fn service(&self) -> actix::Addr<rho_actors::service::ServiceActor> {
        service_at(self.root.path(), self.state.path(), config())
    }
}

pub fn service_at(
    root: &std::path::Path,
    state: &std::path::Path,
    cfg: ProjectConfig,
) -> actix::Addr<rho_actors::service::ServiceActor> {
    use actix::Actor;
    let (registry, _) = rho_actors::registry::Registry::open(state).unwrap();
    rho_actors::service::ServiceActor::new(cfg, registry, root.canonicalize().unwrap())
        .unwrap()
        .start()
}
