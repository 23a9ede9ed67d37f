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
