//! The `rho` binary: composition root and command line.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Rho: a local workspace where a person and their AI Agent do data analysis together.
#[derive(Debug, Parser)]
#[command(name = "rho", version)]
struct Cli {
    /// Config file to use instead of ~/.rho/config.toml (replaces it, never merged).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Inspect configured MCP servers.
    Mcp(rho_mcp::McpArgs),
}

fn main() -> ExitCode {
    // Logs go to stderr. rmcp's OAuth module logs authorization codes at debug, so it is
    // capped at warn whatever RHO_LOG asks for: no credential reaches the logs.
    let wanted = std::env::var("RHO_LOG").unwrap_or_else(|_| "warn".to_owned());
    let filter =
        tracing_subscriber::EnvFilter::try_new(format!("{wanted},rmcp::transport::auth=warn"))
            .unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new("warn,rmcp::transport::auth=warn")
            });
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(filter)
        .init();
    let cli = Cli::parse();
    match cli.command {
        Command::Mcp(args) => rho_mcp::mcp_cli(args, cli.config.as_deref()),
    }
}
