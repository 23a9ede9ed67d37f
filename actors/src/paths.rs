//! Project-relative paths (CONVENTIONS, Projects, paths): refuse absolute paths, `..`, `.rho/`, and symlinks that leave the project.

use crate::error::ActorError;
use std::path::{Component, Path, PathBuf};

/// Checks the shape of a project-relative path (`/`-separated) without touching the disk.
/// Returns its components; the empty path and `.` mean the project folder itself.
pub fn components(field: &str, rel: &str) -> Result<Vec<String>, ActorError> {
    if rel.starts_with('@') {
        return Err(ActorError::invalid(
            field,
            "source folder references (@<sourceId>/...) are not available: this project has no source folders",
        ));
    }
    if rel.starts_with('/') || Path::new(rel).is_absolute() {
        return Err(ActorError::invalid(
            field,
            "paths are relative to the project, not absolute",
        ));
    }
    if rel.contains('\\') || rel.contains('\0') {
        return Err(ActorError::invalid(
            field,
            "paths use / and contain no backslash or NUL",
        ));
    }
    let mut out = Vec::new();
    for part in rel.split('/') {
        match part {
            "" | "." => continue,
            ".." => return Err(ActorError::invalid(field, "paths cannot contain ..")),
            p => out.push(p.to_string()),
        }
    }
    if out.first().is_some_and(|p| p == ".rho") {
        return Err(ActorError::invalid(
            field,
            ".rho/ is Rho's own folder and cannot be addressed",
        ));
    }
    Ok(out)
}

/// Resolves a project-relative path to an existing file or folder inside the project,
/// following symlinks only while they stay inside it.
pub fn resolve_existing(project: &Path, field: &str, rel: &str) -> Result<PathBuf, ActorError> {
    let parts = components(field, rel)?;
    let root = project.canonicalize().map_err(|e| {
        ActorError::unavailable(format!("project folder {}: {e}", project.display()))
    })?;
    let mut path = root.clone();
    for p in &parts {
        path.push(p);
    }
    let real = path.canonicalize().map_err(|_| ActorError::NotFound {
        what: format!("path {rel:?}"),
    })?;
    if !real.starts_with(&root) {
        return Err(ActorError::invalid(
            field,
            "the path leaves the project through a symlink",
        ));
    }
    if real
        .strip_prefix(&root)
        .ok()
        .and_then(|r| r.components().next())
        == Some(Component::Normal(".rho".as_ref()))
    {
        return Err(ActorError::invalid(
            field,
            ".rho/ is Rho's own folder and cannot be addressed",
        ));
    }
    Ok(real)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        assert_eq!(components("path", "a/b/./c").unwrap(), ["a", "b", "c"]);
        assert!(components("path", "").unwrap().is_empty());
        for bad in [
            "/etc",
            "../x",
            "a/../b",
            ".rho",
            ".rho/journal",
            "a\\b",
            "@src/x",
        ] {
            assert_eq!(
                components("path", bad).unwrap_err().code(),
                "invalid",
                "{bad}"
            );
        }
    }

    #[test]
    fn symlinks_may_not_leave_the_project() {
        let outside = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join("in")).unwrap();
        std::os::unix::fs::symlink(outside.path(), project.path().join("out")).unwrap();
        std::os::unix::fs::symlink(project.path().join("in"), project.path().join("alias"))
            .unwrap();
        assert!(resolve_existing(project.path(), "path", "in").is_ok());
        assert!(resolve_existing(project.path(), "path", "alias").is_ok());
        assert_eq!(
            resolve_existing(project.path(), "path", "out")
                .unwrap_err()
                .code(),
            "invalid"
        );
        assert_eq!(
            resolve_existing(project.path(), "path", "missing")
                .unwrap_err()
                .code(),
            "not_found"
        );
    }
}
