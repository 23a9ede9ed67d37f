//! `AccessError`: every refusal of Agent access, with the facts the edge puts in the wire `details`.

use super::super::grants::BUSINESS_PROFILE;
use super::client_run::ClientRun;

/// A refusal or failure of a grant, revocation, lookup or client connection. The message
/// (`Display`) is the wire message; the edge maps each variant to its code and details once.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AccessError {
    /// `invalid` naming the field at fault.
    #[error("{reason}")]
    Invalid { field: &'static str, reason: String },
    /// `invalid`: named methods that are unknown or never grantable to an Agent.
    #[error(
        "not grantable to an Agent (unknown, not allowed to the agent principal, or never grantable): {}",
        .methods.join(", ")
    )]
    NotGrantable { methods: Vec<String> },
    /// `unavailable`: named methods whose owners are not selected.
    #[error("owners not selected for: {}", .methods.join(", "))]
    OwnersUnselected {
        owners: Vec<String>,
        methods: Vec<String>,
    },
    /// `limit` `layeredGrantLimits.maxMethods`: refused, never cut.
    #[error("the grant would have {requested} methods; at most {max} (refused, never cut)")]
    TooManyMethods { requested: usize, max: u64 },
    /// `unavailable`: a profile this build does not serve.
    #[error(
        "profile {profile:?} is not served by this build (only {})",
        BUSINESS_PROFILE
    )]
    Profile { profile: String },
    /// `not_found`.
    #[error("{what} not found")]
    NotFound { what: String },
    /// `unavailable`: the client CLI is not known to this service.
    #[error("the {agent} CLI was not found on PATH (select it with {flag})")]
    NoClient { agent: String, flag: &'static str },
    /// `unavailable`: the client's own `mcp add` did not succeed; a new grant was removed.
    #[error("{agent} mcp add did not succeed{}", refusal_note(.client))]
    Refused {
        agent: String,
        client: ClientRun,
        grant_kept: bool,
    },
    /// `internal`: the detail is for the log only.
    #[error("{0}")]
    Internal(String),
}

fn refusal_note(client: &ClientRun) -> &'static str {
    if client.timed_out {
        " (stopped after 20 s)"
    } else if client.truncated {
        " (stopped after 8 KiB of output)"
    } else {
        ""
    }
}
