//! Rho as an MCP client: configuration, transports, discovery, tool calls and `rho mcp`.

pub mod cli;
pub mod config;
pub mod naming;
pub mod report;

pub use cli::{mcp_cli, run as run_cli, McpArgs, McpCommand};
