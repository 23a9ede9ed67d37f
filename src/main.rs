//! The `rho` binary: composition root and command line.

mod cli;
mod client;
mod inspect;
mod pair;
mod serve;
mod start;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    init_logging();
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let usage = e.use_stderr();
            let _ = e.print();
            return if usage {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    match cli.command {
        Some(cli::Command::Journal(cli::JournalCommand::Inspect(args))) => inspect::run(&args),
        None => match &cli.serve.pair {
            Some(file) => pair::run(file, cli.serve.project.as_deref()),
            None => serve::run(&cli.serve),
        },
    }
}

/// Logs go to stderr through `tracing`; `RUST_LOG` selects what (default: info).
fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}
