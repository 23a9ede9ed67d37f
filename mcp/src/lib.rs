//! Rho as an MCP client (`client/`), the stdio MCP adapter `rho --mcp FILE` (`adapter/`), the
//! `rho mcp` command line (`cli/`), and Rho's own agent: its model providers (`model/`) and the
//! loop that consumes the MCP client (`agent/`).

pub mod adapter;
pub mod agent;
pub mod cli;
pub mod client;
pub mod model;

pub use cli::{mcp_cli, report, run as run_cli, McpArgs, McpCommand};
// The client's modules keep their crate-root paths (`rho_mcp::call::...`) for callers.
pub use client::{
    budget, call, completion, config, connect, elicit, env, eras, form, handler, http, inflight,
    mrtr, naming, oauth, policy, prompts, refresh, registry, render, resources, runtime, sampling,
    schema, stdio,
};
