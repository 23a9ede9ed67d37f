//! Where Rho's home, default config file and state live (`RHO_HOME` overrides `~/.rho`).

use std::path::PathBuf;

/// Rho's home folder: `$RHO_HOME`, else `$HOME/.rho`, else `./.rho`.
pub fn rho_home() -> PathBuf {
    if let Some(h) = std::env::var_os("RHO_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    match std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        Some(home) => PathBuf::from(home).join(".rho"),
        None => PathBuf::from(".rho"),
    }
}

/// `~/.rho/config.toml` (under [`rho_home`]).
pub fn default_config_path() -> PathBuf {
    rho_home().join("config.toml")
}
