//! Why a request to a started server failed without a result (a leaf of the client's module
//! graph, shared by tool calls, prompts, resources and the input rounds).

use crate::client::schema::OutputContractError;

/// Input rounds per request before Rho gives up.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// Why a call failed without a result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No exported name matches.
    #[error("no MCP tool is exported as `{0}`")]
    UnknownTool(String),
    /// The server withdrew the tool mid-session.
    #[error("tool `{tool}` was withdrawn by MCP server `{server}` during this session")]
    Withdrawn {
        /// Server identity.
        server: String,
        /// Raw tool name.
        tool: String,
    },
    /// The server is not running (failed to start, died, or its session ended).
    #[error("MCP server `{server}` is not available: {reason}")]
    Unavailable {
        /// Server identity.
        server: String,
        /// Why.
        reason: String,
    },
    /// The caller cancelled.
    #[error("the call was cancelled")]
    Cancelled,
    /// The budget ran out (time spent waiting on a person does not count).
    #[error("the call did not finish within {}s", .0.as_secs())]
    Timeout(std::time::Duration),
    /// The server answered with a JSON-RPC error.
    #[error("MCP server `{server}` returned an error: {message}")]
    Rpc {
        /// Server identity.
        server: String,
        /// The error message.
        message: String,
    },
    /// The result broke the tool's outputSchema.
    #[error(transparent)]
    Contract(#[from] OutputContractError),
    /// A modern-era server needed input Rho did not give.
    #[error("MCP server `{server}` needed input Rho did not give: {reason}")]
    InputRefused {
        /// Server identity.
        server: String,
        /// Why it was not given.
        reason: String,
    },
    /// The server does not offer this prompt or resource, or is not a live server.
    #[error("MCP server `{server}` does not offer {what}")]
    NotOffered {
        /// Server identity.
        server: String,
        /// What was asked for.
        what: String,
    },
    /// The server answered 401/403 with a challenge (OAuth servers may step up and retry).
    #[error("MCP server `{server}` refused the request for lack of authorization")]
    AuthChallenge {
        /// Server identity.
        server: String,
        /// The `WWW-Authenticate` value.
        challenge: String,
    },
    /// The server kept asking for input.
    #[error("MCP server `{server}` asked for input more than {MAX_INPUT_ROUNDS} times")]
    TooManyInputRounds {
        /// Server identity.
        server: String,
    },
}
