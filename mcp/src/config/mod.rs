//! MCP configuration: the model, the TOML parser and where the files live.

mod model;
mod parse;
mod paths;

pub use model::*;
#[allow(unused_imports)]
pub(crate) use parse::parse_entry;
pub use parse::{load_config_file, parse_config, ConfigError};
pub use paths::{default_config_path, rho_home};

#[cfg(test)]
mod tests;
