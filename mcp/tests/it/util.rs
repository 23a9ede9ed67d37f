//! Shared test helpers: temp configs and running the CLI into buffers.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Parser;

/// A throwaway `rho mcp` parser for tests.
#[derive(Debug, Parser)]
struct TestCli {
    #[command(flatten)]
    args: rho_mcp::McpArgs,
}

/// The outcome of one CLI run.
pub(crate) struct CliRun {
    pub(crate) code: ExitCode,
    pub(crate) stdout: String,
    pub(crate) stderr: String,
}

/// Runs `rho mcp <args>` with `--config <config>` and an empty Rho home.
pub(crate) fn run_cli(config: &Path, args: &[&str]) -> CliRun {
    let home = tempfile::tempdir().expect("tempdir");
    run_cli_home(Some(config), home.path(), args)
}

/// Runs `rho mcp <args>` with an optional `--config` and the given Rho home.
pub(crate) fn run_cli_home(config: Option<&Path>, home: &Path, args: &[&str]) -> CliRun {
    let cli = TestCli::try_parse_from(std::iter::once("mcp").chain(args.iter().copied()))
        .expect("arguments parse");
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = rho_mcp::run_cli(cli.args, config, home, &mut out, &mut err);
    CliRun {
        code,
        stdout: String::from_utf8(out).expect("utf8 stdout"),
        stderr: String::from_utf8(err).expect("utf8 stderr"),
    }
}

/// Writes `text` as a config file in a fresh temp dir.
pub(crate) fn write_config(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("config.toml");
    std::fs::write(&path, text).expect("write config");
    (dir, path)
}
