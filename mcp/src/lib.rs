//! Rho as an MCP client: configuration, transports, discovery, tool calls and `rho mcp`.

pub mod cli;
pub mod config;
pub mod naming;
pub mod report;

pub use cli::{mcp_cli, run as run_cli, McpArgs, McpCommand};
pub mod adapter;
pub mod budget;
pub mod call;
pub mod completion;
pub mod connect;
pub mod elicit;
pub mod env;
pub mod eras;
pub mod handler;
pub(crate) mod handshake;
pub mod http;
pub mod inflight;
pub mod mrtr;
pub mod oauth;
pub mod policy;
pub mod prompts;
pub mod refresh;
pub mod registry;
pub mod render;
pub mod resources;
pub mod runtime;
pub mod sampling;
pub mod schema;
pub mod stdio;
