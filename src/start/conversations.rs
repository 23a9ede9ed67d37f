//! What conversations need from a start: the default backend (`--agent-backend` /
//! `RHO_AGENT_BACKEND`) and where Node 22 (`RHO_NODE`, else `node` on PATH), the pinned ACP
//! adapters (`RHO_ACP_ADAPTERS`, else `<state>/acp-adapters`) and the person's CLIs are.

use super::runtimes::Runtimes;
use super::which::which;
use rho_actors::agent::conversation::driver::ServiceSetup;
use rho_actors::agent::conversation::render::parse_backend;
use rho_actors::agent::conversation::{Backend, RecordLimits};
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
            format!("--agent-backend {name}: the backends are claude-agent-acp and codex-acp (claude-cli is not built yet)")
        }),
    }
}

fn var_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The conversations' setup of this start (missing pieces are named when a conversation starts).
pub(crate) fn setup(state: &Path, runtimes: &Runtimes, default_backend: Backend) -> ServiceSetup {
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
        limits: RecordLimits::default(),
        stop_bound: STOP_BOUND,
    }
}
