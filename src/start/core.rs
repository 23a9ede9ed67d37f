//! The Core selection: `--core` / `RHO_CORE_BINARY`, else this `rho` executable; its identity (path, SHA-256, version).
//!
//! An explicitly selected Core that is missing, not executable or does not answer `--version`
//! fails startup naming it; nothing silently replaces it.

use rho_actors::runs::CoreIdentity;
use std::path::{Path, PathBuf};

use super::which::{is_executable, which};

/// Resolves the Core of this start; `Err` names an explicit selection that cannot be used.
pub(crate) fn select(option: Option<&Path>) -> Result<CoreIdentity, String> {
    let explicit = option.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("RHO_CORE_BINARY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let path = match explicit {
        Some(p) => {
            let found = if p.components().count() == 1 {
                which(&p.to_string_lossy())
            } else {
                Some(p.clone())
            };
            found.filter(|f| is_executable(f)).ok_or_else(|| {
                format!(
                    "the selected Core {} does not exist or is not executable",
                    p.display()
                )
            })?
        }
        None => std::env::current_exe()
            .map_err(|e| format!("locating this rho executable as the Core: {e}"))?,
    };
    let id = rho_kernels::core::CoreIdentity::of(&path).map_err(|e| e.to_string())?;
    Ok(CoreIdentity {
        path: id.path.display().to_string(),
        sha256: id.sha256,
        version: id.version,
    })
}
