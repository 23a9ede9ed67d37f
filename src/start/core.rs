//! The Core selection: `--core` / `RHO_CORE_BINARY`, else this `rho` executable; its identity (path, SHA-256, version).
//!
//! An explicitly selected Core that is missing or not executable fails startup naming it;
//! nothing silently replaces it.

use rho_actors::runs::CoreIdentity;
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::{Path, PathBuf};

fn digest(path: &Path) -> Result<String, String> {
    let mut f = std::fs::File::open(path)
        .map_err(|e| format!("reading the Core {}: {e}", path.display()))?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = f
            .read(&mut buf)
            .map_err(|e| format!("reading the Core {}: {e}", path.display()))?;
        if n == 0 {
            break;
        }
        h.update(&buf[..n]);
    }
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

fn executable(p: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// Resolves the Core of this start; `Err` names an explicit selection that cannot be used.
pub(crate) fn select(option: Option<&Path>) -> Result<CoreIdentity, String> {
    let explicit = option.map(Path::to_path_buf).or_else(|| {
        std::env::var_os("RHO_CORE_BINARY")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    });
    let (path, version) = match explicit {
        Some(p) => {
            let found = if p.components().count() == 1 {
                super::runtimes::which(&p.to_string_lossy())
            } else {
                Some(p.clone())
            };
            let Some(found) = found.filter(|f| executable(f)) else {
                return Err(format!(
                    "the selected Core {} does not exist or is not executable",
                    p.display()
                ));
            };
            // An override is outside bundled digest verification; its version is what it was
            // built as when it is a rho binary, else recorded as unknown.
            (found, "override".to_string())
        }
        None => (
            std::env::current_exe()
                .map_err(|e| format!("locating this rho executable as the Core: {e}"))?,
            env!("CARGO_PKG_VERSION").to_string(),
        ),
    };
    let path = std::fs::canonicalize(&path).unwrap_or(path);
    Ok(CoreIdentity {
        sha256: digest(&path)?,
        path: path.display().to_string(),
        version,
    })
}
