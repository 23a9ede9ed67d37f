//! The projects folder and the state folder of a start, with their rules.

use std::fs;
use std::path::{Path, PathBuf};

/// The folders a start uses.
pub(crate) struct Folders {
    pub(crate) root: PathBuf,
    pub(crate) state: PathBuf,
    /// No --root/--state-dir was given: `~/Rho/projects` and `~/Rho/state`.
    pub(crate) defaults: bool,
}

fn home() -> Option<PathBuf> {
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from)
}

/// Resolves and checks the folders: a given root must exist; the state is created and must be outside the root.
pub(crate) fn resolve(root: Option<&Path>, state: Option<&Path>) -> Result<Folders, String> {
    let base = home().map(|h| h.join("Rho"));
    let defaults = root.is_none() && state.is_none();
    let root = match root {
        Some(r) => {
            if !r.is_dir() {
                return Err(format!(
                    "the projects folder {} does not exist; create it first",
                    r.display()
                ));
            }
            r.to_path_buf()
        }
        None => {
            let r = base
                .as_ref()
                .ok_or("HOME is not set; pass --root")?
                .join("projects");
            fs::create_dir_all(&r).map_err(|e| format!("creating {}: {e}", r.display()))?;
            r
        }
    };
    let state = match state {
        Some(s) => s.to_path_buf(),
        None => base
            .as_ref()
            .ok_or("HOME is not set; pass --state-dir")?
            .join("state"),
    };
    let root = root
        .canonicalize()
        .map_err(|e| format!("{}: {e}", root.display()))?;
    let probe = absolute(&state)?;
    if probe.starts_with(&root) {
        return Err(format!(
            "the state folder {} must be outside the projects folder {}",
            state.display(),
            root.display()
        ));
    }
    fs::create_dir_all(&state).map_err(|e| format!("creating {}: {e}", state.display()))?;
    let state = state
        .canonicalize()
        .map_err(|e| format!("{}: {e}", state.display()))?;
    if state.starts_with(&root) {
        return Err(format!(
            "the state folder {} must be outside the projects folder {}",
            state.display(),
            root.display()
        ));
    }
    Ok(Folders {
        root,
        state,
        defaults,
    })
}

/// An absolute form of a path that may not exist yet (its nearest existing ancestor canonicalized).
fn absolute(p: &Path) -> Result<PathBuf, String> {
    let abs = if p.is_absolute() {
        p.to_path_buf()
    } else {
        std::env::current_dir().map_err(|e| e.to_string())?.join(p)
    };
    let mut existing = abs.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => break,
        }
    }
    let mut out = existing
        .canonicalize()
        .unwrap_or_else(|_| existing.to_path_buf());
    for name in rest.into_iter().rev() {
        out.push(name);
    }
    Ok(out)
}
