//! rho-mcp integration tests: one binary, one module per area. Peers come from
//! `mcp/tests/setup.sh` (see `peers.rs`); a missing peer fails the test.

mod cli_offline;
mod contracts;
mod eras;
mod http;
mod legacy_lists;
mod modern_era;
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
