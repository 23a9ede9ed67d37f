//! What the CLI commands that start servers share: one configured server alone, the command's
//! small async runtime, and its start options (eras, credentials, how it may authorize).

use std::path::Path;

use crate::client::config::{EntryState, McpConfig};
use crate::client::eras::EraStore;
use crate::client::runtime::StartOptions;

/// `config` reduced to server `id`, enabled (`login` and `call` name the server explicitly);
/// an unknown or malformed entry is an error.
pub(super) fn only_server(config: &McpConfig, id: &str) -> Result<McpConfig, String> {
    let Some(entry) = config.entry(id) else {
        return Err(format!(
            "no MCP server `{}` is configured",
            id.escape_default()
        ));
    };
    if !matches!(entry.state, EntryState::Valid(_)) {
        return Err(format!(
            "MCP server `{id}` is malformed; see `rho mcp show {id}`"
        ));
    }
    let mut only = config.clone();
    only.entries.retain(|e| e.id == id);
    if let Some(EntryState::Valid(c)) = only.entries.first_mut().map(|e| &mut e.state) {
        c.enabled = true;
    }
    Ok(only)
}

/// The small async runtime of one CLI command that starts servers.
pub(super) fn async_runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| format!("cannot start the async runtime: {e}"))
}

/// Start options of a CLI command: remembered eras and the credential file of `home`, and
/// how this command may authorize.
pub(super) fn start_options(
    home: &Path,
    authorizer: crate::client::oauth::Authorizer,
) -> StartOptions {
    let mut opts = StartOptions::default();
    opts.connect.eras = Some(EraStore::new(home.join("state").join("mcp-eras.json")));
    opts.connect.oauth.store = Some(credentials_path(home));
    opts.connect.oauth.authorizer = authorizer;
    opts
}

/// Rho's OAuth credential file for MCP servers.
pub fn credentials_path(home: &Path) -> std::path::PathBuf {
    home.join("state").join("mcp-credentials.json")
}
