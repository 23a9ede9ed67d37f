//! `AgentSetup`: what Agent access needs from the running service (grant store, state folder, launcher, client CLIs) and the paths it derives.

use super::super::contract::session::McpEntry;
use super::super::grants::GrantRegistry;
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// What Agent access needs from the running service.
#[derive(Clone)]
pub struct AgentSetup {
    pub grants: GrantRegistry,
    /// The state folder (`<state>/agents/<projectId>/<session>.json`).
    pub state_dir: PathBuf,
    /// Canonical path of the running `rho` executable (the MCP launcher).
    pub exe: PathBuf,
    /// The Claude Code and Codex CLIs (`--claude`/`RHO_CLAUDE`, `--codex`/`RHO_CODEX`).
    pub claude: Option<PathBuf>,
    pub codex: Option<PathBuf>,
}

impl AgentSetup {
    /// The private connection file of (project, session).
    pub fn connection_file(&self, project: Uuid, session: &str) -> PathBuf {
        self.state_dir
            .join("agents")
            .join(project.to_string())
            .join(format!("{session}.json"))
    }

    /// The MCP entry an Agent client registers for a connection file.
    pub fn mcp_entry(&self, file: &Path) -> McpEntry {
        McpEntry {
            name: "rho".into(),
            command: self.exe.display().to_string(),
            args: vec!["--mcp".into(), file.display().to_string()],
        }
    }
}
