//! The `rho` command line: every option and subcommand, parsed by clap.

use clap::{ArgGroup, Args, Parser, Subcommand};
use std::path::PathBuf;

/// Rho: a local workspace where a person and their AI Agent do data analysis together.
#[derive(Debug, Parser)]
#[command(name = "rho", version, about, long_about = None)]
pub(crate) struct Cli {
    /// MCP client configuration to use instead of ~/.rho/config.toml (replaces it, never merged).
    #[arg(long, global = true, value_name = "FILE")]
    pub(crate) config: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) command: Option<Command>,
    #[command(flatten)]
    pub(crate) serve: ServeArgs,
}

/// Options of a service start (`rho` with no subcommand).
#[derive(Debug, Args, Clone)]
#[command(group(ArgGroup::new("project_user").args(["pair", "grant", "agent"])))]
pub(crate) struct ServeArgs {
    /// The projects folder (must exist). Default: ~/Rho/projects, created if missing.
    #[arg(long, value_name = "DIR")]
    pub(crate) root: Option<PathBuf>,
    /// The service state folder (created if missing; must be outside the root). Default: ~/Rho/state.
    #[arg(long = "state-dir", value_name = "DIR")]
    pub(crate) state_dir: Option<PathBuf>,
    /// Listen on this loopback port (0: any new port). Default: this state's last port.
    #[arg(long, value_name = "PORT")]
    pub(crate) port: Option<u16>,
    /// Select capability owners, comma-separated ("" selects none). Default: all.
    #[arg(long, value_name = "LIST")]
    pub(crate) plugins: Option<String>,
    /// A JSON limits file (keys of docs/operations.md); values the seed calls maxima can only be lowered.
    #[arg(long, value_name = "FILE")]
    pub(crate) limits: Option<PathBuf>,
    /// The Rscript to use (or RHO_RSCRIPT). Default: Rscript on PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) rscript: Option<PathBuf>,
    /// The Core binary that runs managed R scripts (or RHO_CORE_BINARY). Default: this rho executable.
    #[arg(long, value_name = "PATH")]
    pub(crate) core: Option<PathBuf>,
    /// R package repositories for requirements.prepare, as JSON `{"cran":[urls],"bioconductor":[urls]}` (or RHO_R_REPOS).
    #[arg(long = "r-repos", value_name = "JSON")]
    pub(crate) r_repos: Option<String>,
    /// The Claude Code CLI to use (or RHO_CLAUDE). Default: claude on PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) claude: Option<PathBuf>,
    /// The Codex CLI to use (or RHO_CODEX). Default: codex on PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) codex: Option<PathBuf>,
    /// The conversations' default Agent backend (or RHO_AGENT_BACKEND): claude-agent-acp
    /// (Claude Code, the default), codex-acp (Codex), claude-cli, or rho (Rho's own agent on
    /// the model of the --config file's `[model]` table). `claude` and `codex` name them too.
    #[arg(long = "agent-backend", value_name = "BACKEND")]
    pub(crate) agent_backend: Option<String>,
    /// The Python to use (or RHO_PYTHON). Default: python3 on PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) python: Option<PathBuf>,
    /// The ssh sessions and files on a server use (or RHO_SSH). Default: ssh on PATH, with the
    /// person's own config, keys and agent; Rho stores no password or key.
    #[arg(long, value_name = "PATH")]
    pub(crate) ssh: Option<PathBuf>,
    /// The serverctl that reaches the servers the person manages (or RHO_SERVERCTL); its SSM_*
    /// settings come from this environment. Default: serverctl on PATH.
    #[arg(long, value_name = "PATH")]
    pub(crate) serverctl: Option<PathBuf>,
    /// Mint a one-time browser link (5 minutes, single use) from a running service's connection file.
    #[arg(long, value_name = "CONNECTION_FILE", conflicts_with_all = ["root", "state_dir", "port", "plugins", "limits"])]
    pub(crate) pair: Option<PathBuf>,
    /// Serve one Agent grant's project over stdio MCP (the connection file `rho --grant` wrote); starts no service.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["root", "state_dir", "port", "plugins", "limits", "pair", "grant", "agent"])]
    pub(crate) mcp: Option<PathBuf>,
    /// With --pair: narrow the link to one folder below the service root. With --grant or
    /// --agent: the project in this folder below the root.
    #[arg(long, value_name = "FOLDER", requires = "project_user")]
    pub(crate) project: Option<PathBuf>,
    /// Grant one project to a named Agent through a running service's connection file (prints JSON).
    #[arg(long, value_name = "CONNECTION_FILE", conflicts_with_all = ["root", "state_dir", "port", "plugins", "limits", "pair", "agent"])]
    pub(crate) grant: Option<PathBuf>,
    /// With --grant: the project by id (or --project FOLDER).
    #[arg(long = "project-id", value_name = "ID", requires = "grant")]
    pub(crate) project_id: Option<String>,
    /// With --grant: the Agent's session name (default claude-code).
    #[arg(long, value_name = "NAME", requires = "grant")]
    pub(crate) session: Option<String>,
    /// With --grant: how long the grant lasts, e.g. 7d or 12h (default 30 days).
    #[arg(long, value_name = "DURATION", requires = "grant")]
    pub(crate) expires: Option<String>,
    /// At start: grant --project FOLDER to this Agent and run its own `mcp add`.
    #[arg(long, value_name = "AGENT", value_parser = ["claude-code", "codex"], requires = "project", conflicts_with = "pair")]
    pub(crate) agent: Option<String>,
    /// Be the Agent executable of an external ACP client (Zed, ...) for this project folder
    /// (absolute): start --acp-agent's adapter there, forward stdio unchanged and record its
    /// sessions, prompts' times, tool steps and stop reasons through the running service.
    #[arg(long, value_name = "PROJECT", requires = "acp_agent", conflicts_with_all = ["root", "port", "plugins", "limits", "pair", "grant", "agent", "mcp", "project"])]
    pub(crate) acp: Option<PathBuf>,
    /// With --acp: the Agent, claude (Claude Code) or codex (Codex).
    #[arg(long = "acp-agent", value_name = "AGENT", value_parser = ["claude", "codex"], requires = "acp")]
    pub(crate) acp_agent: Option<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Read a project's journal without a running service.
    #[command(subcommand)]
    Journal(JournalCommand),
    /// The MCP servers Rho's own agent can use: `rho mcp list|show`.
    Mcp(rho_mcp::McpArgs),
    /// The Core: the project Host that runs managed R scripts, and its client commands.
    Core(rho_kernels::cli::CoreArgs),
}

#[derive(Debug, Subcommand)]
pub(crate) enum JournalCommand {
    /// Print, verify, count or replay a project's journal (read-only; safe while the service runs).
    Inspect(InspectArgs),
}

/// `rho journal inspect` options.
#[derive(Debug, Args)]
pub(crate) struct InspectArgs {
    /// A project folder or its journal folder (`<project>/.rho/journal`).
    pub(crate) path: PathBuf,
    /// JSON Lines on stdout (schema in docs/operations.md).
    #[arg(long)]
    pub(crate) json: bool,
    /// First seq to show.
    #[arg(long, value_name = "SEQ")]
    pub(crate) from: Option<u64>,
    /// Last seq to show.
    #[arg(long, value_name = "SEQ")]
    pub(crate) to: Option<u64>,
    /// Only records of this entity id (with --replay: print this entity's state).
    #[arg(long, value_name = "ID")]
    pub(crate) entity: Option<uuid::Uuid>,
    /// Check every frame, seq, epoch and snapshot; print the first problem.
    #[arg(long)]
    pub(crate) verify: bool,
    /// Segments, records, bytes, records per entity kind, last durable seq, scan speed.
    #[arg(long)]
    pub(crate) stats: bool,
    /// Replay with the service's fold code and print the rebuilt state.
    #[arg(long)]
    pub(crate) replay: bool,
    /// With --replay: the state as of this seq.
    #[arg(long, value_name = "SEQ", requires = "replay")]
    pub(crate) at: Option<u64>,
}
