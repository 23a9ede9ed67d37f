//! rho-mcp integration tests: one binary, one module per area.

mod cli_offline;
mod util;
