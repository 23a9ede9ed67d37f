//! The `rho mcp list|show|login|call` command line: arguments, dispatch and exit codes.

mod call;
mod conformance;
pub mod report;
mod setup;
mod text;

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use crate::cli::report::{configured_report, configured_reports, live_report, ServerReport};
use crate::client::config::{load_session_config, rho_home, EntryState, McpConfig};
use crate::client::runtime::McpRuntime;
pub use setup::credentials_path;
use setup::{async_runtime, only_server, start_options};

/// `rho mcp ...`
#[derive(Debug, Args)]
pub struct McpArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: McpCommand,
}

/// `rho mcp` subcommands.
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// List configured MCP servers without starting them.
    List {
        /// Start enabled servers and report live status, era and discovered tools.
        #[arg(long)]
        connect: bool,
        /// Print JSON (stable, documented in docs/mcp-client.md).
        #[arg(long)]
        json: bool,
    },
    /// Conformance-suite client (hidden): the suite appends the server URL.
    #[command(hide = true, name = "conformance-client")]
    ConformanceClient {
        /// The suite's server URL.
        url: String,
    },
    /// Authorize one OAuth server once, in the browser (needs an interactive terminal, not CI).
    Login {
        /// Server identity.
        id: String,
    },
    /// Call one tool of one server and print what the model would read (stored OAuth tokens
    /// are reused and refreshed; never a browser).
    Call {
        /// Server identity.
        id: String,
        /// The tool's name as the server lists it.
        tool: String,
        /// The arguments, a JSON object.
        #[arg(long)]
        args: Option<String>,
    },
    /// Show one configured MCP server.
    Show {
        /// Server identity (`<id>` or `<plugin>/<server>`).
        id: String,
        /// Start the server and report live status, tools, prompts and resources.
        #[arg(long)]
        connect: bool,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs `rho mcp ...`; `config` is the global `--config` file (replaces `~/.rho/config.toml`).
pub fn mcp_cli(args: McpArgs, config: Option<&Path>) -> ExitCode {
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    run(args, config, &rho_home(), &mut out, &mut err)
}

/// [`mcp_cli`] with an explicit Rho home (default config and plugins) and explicit output
/// (stdout) and diagnostic (stderr) writers.
pub fn run(
    args: McpArgs,
    config: Option<&Path>,
    home: &Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> ExitCode {
    let mut fail = |msg: &str| {
        let _ = writeln!(err, "rho mcp: {msg}");
        ExitCode::from(1)
    };
    if let McpCommand::ConformanceClient { url } = &args.command {
        return conformance::run(url, err);
    }
    let config = match load(config, home) {
        Ok(c) => c,
        Err(msg) => return fail(&msg),
    };
    let mut out = out;
    let written = match args.command {
        McpCommand::List { connect, json } => {
            let reports = if connect {
                match probe(&config, home) {
                    Ok(r) => r,
                    Err(msg) => return fail(&msg),
                }
            } else {
                configured_reports(&config)
            };
            write_reports(&mut out, &reports, json)
        }
        McpCommand::ConformanceClient { .. } => Ok(()),
        McpCommand::Login { id } => match login(&config, &id, home) {
            Ok(line) => writeln!(out, "{line}"),
            Err(msg) => return fail(&msg),
        },
        McpCommand::Call { id, tool, args } => {
            match call::call(&config, &id, &tool, args.as_deref(), home) {
                Ok(text) => writeln!(out, "{text}"),
                Err(msg) => return fail(&msg),
            }
        }
        McpCommand::Show { id, connect, json } => {
            let Some(entry) = config.entry(&id) else {
                return fail(&format!(
                    "no MCP server `{}` is configured",
                    id.escape_default()
                ));
            };
            let report = if connect {
                let mut only = config.clone();
                only.entries.retain(|e| e.id == id);
                match probe(&only, home) {
                    Ok(mut r) if !r.is_empty() => r.remove(0),
                    Ok(_) => configured_report(entry),
                    Err(msg) => return fail(&msg),
                }
            } else {
                configured_report(entry)
            };
            if json {
                write_json(&mut out, &report)
            } else {
                text::write_show(&mut out, &report)
            }
        }
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&format!("cannot write output: {e}")),
    }
}

/// Starts the enabled servers of `config` (no person to ask, no model: no elicitation or
/// sampling declared), reports every entry, and shuts everything down.
fn probe(config: &McpConfig, home: &Path) -> Result<Vec<ServerReport>, String> {
    if config.enabled().next().is_none() {
        // Zero-server fast path: no async runtime, no process, no connection.
        return Ok(configured_reports(config));
    }
    let rt = async_runtime()?;
    rt.block_on(async {
        // Stored tokens are reused (and refreshed); `--connect` never opens a browser.
        let opts = start_options(home, crate::client::oauth::Authorizer::Never);
        let Some(runtime) = McpRuntime::start(config, opts).await else {
            return Ok(configured_reports(config));
        };
        let mut slots = runtime.slots().iter();
        let reports = config
            .entries
            .iter()
            .map(|entry| {
                let enabled = matches!(&entry.state, EntryState::Valid(c) if c.enabled);
                match (enabled, enabled.then(|| slots.next()).flatten()) {
                    (true, Some(slot)) => live_report(entry, slot, runtime.registry()),
                    _ => configured_report(entry),
                }
            })
            .collect();
        runtime.shutdown().await;
        Ok(reports)
    })
}

/// `rho mcp login <id>`: starts that one server with the browser authorizer, so its tokens
/// land in the credential store; later runs (and `--connect`) reuse and refresh them.
fn login(config: &McpConfig, id: &str, home: &Path) -> Result<String, String> {
    let only = only_server(config, id)?;
    let oauth = matches!(only.entries.first().map(|e| &e.state), Some(EntryState::Valid(cfg))
        if matches!(&cfg.transport,
            crate::client::config::TransportConfig::StreamableHttp(h) if crate::client::http::uses_oauth(h)));
    if !oauth {
        return Err(format!(
            "MCP server `{id}` does not use OAuth (no `[oauth]` table, or an Authorization header is configured)"
        ));
    }
    let authorizer = crate::client::oauth::Authorizer::for_interactive_session();
    if authorizer != crate::client::oauth::Authorizer::Browser {
        return Err(format!(
            "authorizing `{id}` needs a person: run `rho mcp login {id}` in an interactive terminal outside CI"
        ));
    }
    let rt = async_runtime()?;
    rt.block_on(async {
        let opts = start_options(home, authorizer);
        let Some(runtime) = McpRuntime::start(&only, opts).await else {
            return Err(format!("MCP server `{id}` did not start"));
        };
        let result = match &runtime.slots()[0] {
            crate::client::runtime::Slot::Live(l) => Ok(format!(
                "authorized `{id}`: {} tools; the token is stored for later sessions",
                l.snapshot().tools.len()
            )),
            crate::client::runtime::Slot::Failed { error, .. } => {
                Err(format!("authorizing `{id}` failed: {error}"))
            }
        };
        runtime.shutdown().await;
        result
    })
}

fn load(config: Option<&Path>, home: &Path) -> Result<McpConfig, String> {
    load_session_config(config, home).map_err(|e| e.to_string())
}

fn write_reports(out: &mut dyn Write, reports: &[ServerReport], json: bool) -> std::io::Result<()> {
    if json {
        write_json(out, &serde_json::json!({ "servers": reports }))
    } else {
        text::write_list(out, reports)
    }
}

fn write_json(out: &mut dyn Write, value: &impl serde::Serialize) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(std::io::Error::from)?;
    writeln!(out)
}
