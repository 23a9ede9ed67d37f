//! A Core binary of the kernels crate alone (`rho-core core <command>`, the same CLI as `rho
//! core`), so this crate's tests run a real Host and guard without building the service.

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// The Core of Rho.
#[derive(Debug, Parser)]
#[command(name = "rho", version)]
struct Bin {
    #[command(subcommand)]
    command: Top,
}

#[derive(Debug, Subcommand)]
enum Top {
    /// The Core commands.
    Core(rho_kernels::cli::CoreArgs),
}

fn main() -> ExitCode {
    let bin = match Bin::try_parse() {
        Ok(b) => b,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            return ExitCode::from(if usage { 2 } else { 0 });
        }
    };
    let Top::Core(args) = bin.command;
    let filter = std::env::var("RUST_LOG").unwrap_or_else(|_| args.log_level().to_string());
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_new(filter)
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    rho_kernels::cli::run(args)
}
