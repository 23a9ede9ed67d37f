//! rho-mcp integration tests: one binary, one module per area. Peers come from
//! `mcp/tests/setup.sh` (see `peers.rs`); a missing peer fails the test.

// Test code: an unwrap or expect that fails is a failing test (clippy.toml cannot see helpers here).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod agent_model;
mod agent_support;
mod agent_surfaces;
mod agent_tools;
mod bounded_close;
mod cli_offline;
mod contracts;
mod eras;
mod http;
mod legacy_lists;
mod modern_era;
mod oauth_login_bound;
mod oauth_store;
mod peers;
mod plugins;
mod policies;
mod prompts_resources;
mod questions;
mod server_logs;
mod stdio_lifecycle;
mod tidy;
mod tool_calls;
mod util;
