//! What conversations need from a start: the default backend (`--agent-backend` /
//! `RHO_AGENT_BACKEND`), where Node 22 (`RHO_NODE`, else `node` on PATH), the pinned ACP
//! adapters (`RHO_ACP_ADAPTERS`, else `<state>/acp-adapters`) and the person's CLIs are, and
//! the `conversations` limits. A missing Node or adapter is said on stderr at start with the
//! one install command (nothing is installed).

use super::runtimes::Runtimes;
use super::which::which;
use rho_actors::agent::conversation::driver::ServiceSetup;
use rho_actors::agent::conversation::render::parse_backend;
use rho_actors::agent::conversation::{Backend, RecordLimits};
use rho_actors::limits::ConversationLimits;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// How long `conversation.stop` waits for the prompt's response to confirm the cancel.
const STOP_BOUND: Duration = Duration::from_secs(15);

/// The default backend: the option, else the variable, else Claude Code.
pub(crate) fn backend(option: Option<&str>) -> Result<Backend, String> {
    let chosen = option.map(str::to_string).or_else(|| {
        std::env::var("RHO_AGENT_BACKEND")
            .ok()
            .filter(|v| !v.is_empty())
    });
    match chosen {
        None => Ok(Backend::ClaudeAgentAcp),
        Some(name) => parse_backend(&name).ok_or_else(|| {
            format!("--agent-backend {name}: the backends are claude-agent-acp, codex-acp and claude-cli")
        }),
    }
}

fn var_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The conversations' setup of this start; a missing Node or adapter is said on stderr now
/// (and named again when a conversation starts).
pub(crate) fn setup(
    state: &Path,
    runtimes: &Runtimes,
    default_backend: Backend,
    limits: &ConversationLimits,
) -> ServiceSetup {
    let setup = service_setup(state, runtimes, default_backend, limits);
    let missing = setup.runtimes.missing_adapters();
    if !missing.is_empty() {
        eprintln!(
            "rho: conversations with Claude Code (claude-agent-acp) and Codex (codex-acp) are unavailable: missing {}. Install Node 22 if it is missing, then the pinned adapters with: {}",
            missing.join(", "),
            setup.runtimes.install_command()
        );
    }
    setup
}

pub(crate) fn service_setup(
    state: &Path,
    runtimes: &Runtimes,
    default_backend: Backend,
    limits: &ConversationLimits,
) -> ServiceSetup {
    let cli =
        |found: &Option<PathBuf>, name: &str| found.clone().unwrap_or_else(|| PathBuf::from(name));
    ServiceSetup {
        runtimes: rho_actors::agent::conversation::Runtimes {
            node: var_path("RHO_NODE")
                .or_else(|| which("node"))
                .unwrap_or_else(|| PathBuf::from("node")),
            adapters: var_path("RHO_ACP_ADAPTERS").unwrap_or_else(|| state.join("acp-adapters")),
            claude: cli(&runtimes.claude.path, "claude"),
            codex: cli(&runtimes.codex.path, "codex"),
            env: Vec::new(),
        },
        default_backend,
        limits: RecordLimits::from(limits),
        turn: limits.into(),
        keep: limits.into(),
        stop_bound: STOP_BOUND,
    }
}
