//! The `rho` binary: composition root and command line.

mod cli;
mod client;
mod connect;
mod grant;
mod inspect;
mod pair;
mod relay;
mod serve;
mod start;

use clap::Parser;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Test builds only: fail points named in FAILPOINTS (tests/it/runs_crash.rs).
    #[cfg(feature = "failpoints")]
    let _failpoints = fail::FailScenario::setup();
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
    // A service logs what it does; one-shot commands only warnings.
    init_logging(match &cli.command {
        None if cli.serve.mcp.is_some() || cli.serve.acp.is_some() => "warn",
        None => "info",
        Some(cli::Command::Core(args)) => args.log_level(),
        Some(_) => "warn",
    });
    match cli.command {
        Some(cli::Command::Journal(cli::JournalCommand::Inspect(args))) => inspect::run(&args),
        Some(cli::Command::Mcp(args)) => rho_mcp::mcp_cli(args, cli.config.as_deref()),
        Some(cli::Command::Core(args)) => rho_kernels::cli::run(args),
        None if cli.serve.mcp.is_some() => {
            rho_mcp::adapter::run(cli.serve.mcp.as_deref().unwrap_or(std::path::Path::new("")))
        }
        None if cli.serve.acp.is_some() => relay::run(&relay::RelayArgs {
            project: cli.serve.acp.as_deref().unwrap_or(std::path::Path::new("")),
            agent: cli.serve.acp_agent.as_deref().unwrap_or("claude"),
            state_dir: cli.serve.state_dir.as_deref(),
            claude: cli.serve.claude.as_deref(),
            codex: cli.serve.codex.as_deref(),
        }),
        None => match (&cli.serve.pair, &cli.serve.grant) {
            (Some(file), _) => pair::run(file, cli.serve.project.as_deref()),
            (None, Some(file)) => grant::run(&grant::GrantArgs {
                connection: file,
                project_id: cli.serve.project_id.as_deref(),
                project: cli.serve.project.as_deref(),
                session: cli.serve.session.as_deref(),
                expires: cli.serve.expires.as_deref(),
            }),
            (None, None) => serve::run(&cli.serve, cli.config.as_deref()),
        },
    }
}

/// Logs go to stderr through `tracing`; `RUST_LOG` selects what. rmcp logs OAuth authorization
/// codes at debug level, so its auth module is capped at warn whatever is asked: no credential
/// reaches the logs.
fn init_logging(default: &str) {
    let wanted = std::env::var("RUST_LOG").unwrap_or_else(|_| default.to_string());
    let filter =
        tracing_subscriber::EnvFilter::try_new(format!("{wanted},rmcp::transport::auth=warn"))
            .unwrap_or_else(|_| {
                tracing_subscriber::EnvFilter::new(format!("{default},rmcp::transport::auth=warn"))
            });
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
}
