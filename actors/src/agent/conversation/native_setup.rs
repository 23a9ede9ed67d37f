//! Where Rho's own agent is configured and what its session is started with: the `[model]`
//! and `[mcp]` tables of the selected config, how its MCP servers start, the project tools of
//! the conversation's grant, and a server process's command line (journaled for recovery).

use rho_mcp::agent::{GrantTools, ProjectTools};
use rho_mcp::config::McpConfig;
use rho_mcp::model::ModelClient;
use rho_mcp::runtime::StartOptions;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Bytes of a project tool's result the model reads.
const PROJECT_OUTPUT_BYTES: usize = 64 * 1024;

/// Where Rho's own agent is configured: the selected config file (`--config`, else
/// `<home>/config.toml`) with its `[model]` and `[mcp]` tables, and Rho's home (`RHO_HOME`,
/// else `~/.rho`: the credential store, the eras file, the plugins).
#[derive(Debug, Clone)]
pub struct NativeConfig {
    pub config: Option<PathBuf>,
    pub home: PathBuf,
    /// The Rscript and Python the service found at start (`/doctor` names them).
    pub rscript: Option<PathBuf>,
    pub python: Option<PathBuf>,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig {
            config: None,
            home: rho_mcp::config::rho_home(),
            rscript: None,
            python: None,
        }
    }
}

impl NativeConfig {
    /// The person's model, or why the backend is unavailable (each missing piece named; the
    /// key itself never appears).
    pub fn model(&self) -> Result<ModelClient, String> {
        let cfg = rho_mcp::model::load_model_config(self.config.as_deref(), &self.home)
            .map_err(|e| e.to_string())?;
        let key = rho_mcp::model::resolve_key(&cfg, &self.home).map_err(|e| e.to_string())?;
        ModelClient::new(cfg, key).map_err(|e| format!("Rho's own agent is unavailable: {e}"))
    }

    /// The selected config's MCP servers and the plugins'.
    pub fn mcp(&self) -> Result<McpConfig, String> {
        rho_mcp::config::load_session_config(self.config.as_deref(), &self.home)
            .map_err(|e| format!("Rho's own agent is unavailable: {e}"))
    }

    /// How its MCP servers start: the project folder as their root, the eras and OAuth files
    /// of Rho's home (a server that needs a new authorization fails; nobody can sign in here).
    pub(super) fn start_options(&self, workspace: &Path) -> StartOptions {
        let mut opts = StartOptions::default();
        let state = self.home.join("state");
        opts.connect.workspace = Some(workspace.to_path_buf());
        opts.connect.eras = Some(rho_mcp::eras::EraStore::new(state.join("mcp-eras.json")));
        opts.connect.oauth.store = Some(state.join("mcp-credentials.json"));
        opts
    }
}

/// The project tools of a grant's connection file.
pub(super) async fn project_tools(file: &Path) -> Result<Arc<dyn ProjectTools>, String> {
    let adapter = rho_mcp::adapter::open(file, rho_mcp::adapter::limits::Limits::default())
        .map_err(|e| {
            format!(
                "Rho's own agent could not open its grant {}: {e}",
                file.display()
            )
        })?;
    let tools = GrantTools::load(Arc::new(adapter), PROJECT_OUTPUT_BYTES)
        .await
        .map_err(|e| format!("Rho's own agent could not list its project tools: {e}"))?;
    Ok(Arc::new(tools))
}

/// A process's command line (`/proc/<pid>/cmdline`, NUL-separated), if it runs.
pub fn cmdline(pid: i32) -> Option<String> {
    std::fs::read(format!("/proc/{pid}/cmdline"))
        .ok()
        .filter(|c| !c.is_empty())
        .map(|c| String::from_utf8_lossy(&c).into_owned())
}
