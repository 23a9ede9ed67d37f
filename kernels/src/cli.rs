//! The Core CLI (`rho core <command>`): the Host itself, the guard trampoline, and one command
//! per Host request. JSON on stdout; exit 0 success, 1 rejection, 2 usage, 3 unavailable (no Host
//! answering), 4 uncertain delivery (a change was sent but its reply was lost).

use crate::host::client::{self, HostClientError};
use crate::host::proto::{HostReply, HostRequest, RunSpec};
use crate::host::server::{self, HostConfig, HostExit};
use clap::{Args, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Exit codes of the Core CLI (see `docs/core-host.md`).
pub mod exit {
    pub const SUCCESS: u8 = 0;
    pub const REJECTED: u8 = 1;
    pub const USAGE: u8 = 2;
    pub const UNAVAILABLE: u8 = 3;
    pub const UNCERTAIN: u8 = 4;
}

/// `rho core ...`
#[derive(Debug, Args)]
pub struct CoreArgs {
    #[command(subcommand)]
    pub command: CoreCommand,
}

impl CoreArgs {
    /// The default log level for this command (the Host logs what it does into its log).
    pub fn log_level(&self) -> &'static str {
        match self.command {
            CoreCommand::Host { .. } => "info",
            _ => "warn",
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum CoreCommand {
    /// Run the project's Host in this process (normally started by Rho, detached).
    Host {
        #[arg(long, value_name = "DIR")]
        project: PathBuf,
    },
    /// Run PROGRAM as the leader of the Host's run group (internal).
    #[command(hide = true)]
    Guard {
        #[arg(last = true, required = true, value_name = "PROGRAM ARGS")]
        command: Vec<OsString>,
    },
    /// Run one Console command detached, writing its output and end to its record folder (internal).
    #[command(hide = true)]
    ConsoleGuard(crate::console::guard::GuardArgs),
    /// Start the project's Host unless one answers; prints its pid and whether this started it.
    Start {
        #[command(flatten)]
        target: Target,
    },
    /// Is a Host serving the project?
    Ping {
        #[command(flatten)]
        target: Target,
    },
    /// Deliver a run: --spec is a RunSpec JSON file.
    Submit {
        #[command(flatten)]
        target: Target,
        #[arg(long, value_name = "FILE")]
        spec: PathBuf,
    },
    /// The record of one run.
    Lookup {
        #[command(flatten)]
        target: Target,
        #[arg(long = "operation", value_name = "ID")]
        operation: String,
    },
    /// The record of one run once it is no longer running (or after --wait-ms).
    Wait {
        #[command(flatten)]
        target: Target,
        #[arg(long = "operation", value_name = "ID")]
        operation: String,
        #[arg(long, value_name = "MS", default_value_t = 30_000)]
        wait_ms: u64,
    },
    /// Stop a run: SIGTERM to its process group, SIGKILL after its grace.
    Cancel {
        #[command(flatten)]
        target: Target,
        #[arg(long = "operation", value_name = "ID")]
        operation: String,
        #[arg(long, value_name = "WHO", default_value = "operator")]
        requested_by: String,
    },
    /// Every record the Host holds.
    List {
        #[command(flatten)]
        target: Target,
    },
    /// Stop every running run, then the Host.
    Shutdown {
        #[command(flatten)]
        target: Target,
        #[arg(long, value_name = "WHO", default_value = "operator")]
        requested_by: String,
    },
}

/// The project and how long to wait for the Host.
#[derive(Debug, Args)]
pub struct Target {
    #[arg(long, value_name = "DIR")]
    pub project: PathBuf,
    /// Give up on the reply after this long (a `wait` adds its --wait-ms).
    #[arg(long, value_name = "MS", default_value_t = 10_000)]
    pub timeout_ms: u64,
}

/// Runs a Core command; the exit code is the CLI contract above.
pub fn run(args: CoreArgs) -> ExitCode {
    let code = match args.command {
        CoreCommand::Host { project } => host(project),
        CoreCommand::Guard { command } => return crate::guard::run(&command),
        CoreCommand::ConsoleGuard(args) => return crate::console::guard::run(args),
        CoreCommand::Start { target } => start(&target),
        CoreCommand::Ping { target } => send(&target, HostRequest::Ping, 0),
        CoreCommand::Submit { target, spec } => match read_spec(&spec) {
            Ok(spec) => send(&target, HostRequest::Submit(Box::new(spec)), 0),
            Err(why) => fail(exit::REJECTED, &why),
        },
        CoreCommand::Lookup { target, operation } => send(
            &target,
            HostRequest::Lookup {
                operation_id: operation,
            },
            0,
        ),
        CoreCommand::Wait {
            target,
            operation,
            wait_ms,
        } => send(
            &target,
            HostRequest::Wait {
                operation_id: operation,
                timeout_ms: wait_ms,
            },
            wait_ms,
        ),
        CoreCommand::Cancel {
            target,
            operation,
            requested_by,
        } => send(
            &target,
            HostRequest::Cancel {
                operation_id: operation,
                requested_by,
            },
            0,
        ),
        CoreCommand::List { target } => send(&target, HostRequest::List, 0),
        CoreCommand::Shutdown {
            target,
            requested_by,
        } => send(&target, HostRequest::Shutdown { requested_by }, 30_000),
    };
    ExitCode::from(code)
}

fn fail(code: u8, why: &str) -> u8 {
    eprintln!("rho core: {why}");
    code
}

fn print_json(value: &impl serde::Serialize) {
    let mut out = std::io::stdout().lock();
    if let Ok(mut line) = serde_json::to_vec(value) {
        line.push(b'\n');
        let _ = out.write_all(&line);
        let _ = out.flush();
    }
}

fn host(project: PathBuf) -> u8 {
    let config = match HostConfig::for_process(project) {
        Ok(c) => c,
        Err(e) => return fail(exit::REJECTED, &e.to_string()),
    };
    match server::run(config) {
        Ok(HostExit::AlreadyServed { pid }) => {
            tracing::info!(pid, "another Host already serves this project");
            exit::SUCCESS
        }
        Ok(_) => exit::SUCCESS,
        Err(e) => fail(exit::REJECTED, &e.to_string()),
    }
}

fn start(target: &Target) -> u8 {
    let core = match std::env::current_exe() {
        Ok(p) => p,
        Err(e) => return fail(exit::REJECTED, &format!("cannot find this executable: {e}")),
    };
    let timeout = Duration::from_millis(target.timeout_ms);
    match client::start(&core, &target.project, timeout) {
        Ok(started) => {
            print_json(&serde_json::json!({"pid": started.pid, "owned": started.owned}));
            exit::SUCCESS
        }
        Err(e) => fail(client_exit(&e, false), &e.to_string()),
    }
}

fn read_spec(path: &PathBuf) -> Result<RunSpec, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{} is not a RunSpec: {e}", path.display()))
}

/// A client error's exit code: a change whose reply was lost is uncertain (4), every other
/// failure to reach a Host is unavailable (3); a bad socket path is a refusal (1).
fn client_exit(e: &HostClientError, changes: bool) -> u8 {
    match e {
        HostClientError::Lost { .. } if changes => exit::UNCERTAIN,
        HostClientError::SocketPath(_) | HostClientError::Encode(_) => exit::REJECTED,
        _ => exit::UNAVAILABLE,
    }
}

fn send(target: &Target, request: HostRequest, extra_ms: u64) -> u8 {
    let changes = matches!(
        request,
        HostRequest::Submit(_) | HostRequest::Cancel { .. } | HostRequest::Shutdown { .. }
    );
    let timeout = Duration::from_millis(target.timeout_ms.saturating_add(extra_ms));
    match client::request(&target.project, &request, timeout) {
        Ok(reply) => {
            print_json(&reply);
            match reply {
                HostReply::Error { .. } => exit::REJECTED,
                _ => exit::SUCCESS,
            }
        }
        Err(e) => fail(client_exit(&e, changes), &e.to_string()),
    }
}
