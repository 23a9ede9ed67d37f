//! MCP configuration: the model, the TOML parser and where the files live.

mod model;
mod parse;
mod paths;
mod plugins;

pub use model::*;
pub use parse::{load_config_file, parse_config, ConfigError};
pub use paths::{default_config_path, rho_home};
pub use plugins::{load_plugin_servers, plugin_entries};

/// What a session reads: the selected config file (`--config`, or `<home>/config.toml`;
/// never both) plus every plugin's servers under `<home>/plugins`.
pub fn load_session_config(
    config: Option<&std::path::Path>,
    home: &std::path::Path,
) -> Result<McpConfig, ConfigError> {
    let (path, required) = match config {
        Some(p) => (p.to_owned(), true),
        None => (home.join("config.toml"), false),
    };
    let mut cfg = load_config_file(&path, required)?;
    cfg.entries.extend(load_plugin_servers(home));
    Ok(cfg)
}

#[cfg(test)]
mod tests;
