//! Listing a project folder for `project.entries`: sorted by name, paged, `.rho/` hidden, symlinks kept inside.

use crate::error::ActorError;
use crate::paths;
use serde::Serialize;
use std::path::Path;

/// Entries per page.
pub(crate) const PAGE: usize = 200;

/// One listed entry.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Entry {
    pub name: String,
    /// Project-relative, `/`-separated.
    pub path: String,
    /// `file`, `directory` or `source`.
    pub kind: &'static str,
    pub bytes: Option<u64>,
    /// Unix milliseconds of the last modification.
    pub modified_ms: Option<i64>,
}

/// One page of a folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Page {
    pub entries: Vec<Entry>,
    /// The cursor of the next page (the last name of this one), if there is more.
    pub next: Option<String>,
}

/// Lists `rel` inside `project`, entries after `cursor` (a name), sorted by name.
pub(crate) fn list(project: &Path, rel: &str, cursor: Option<&str>) -> Result<Page, ActorError> {
    let dir = paths::resolve_existing(project, "path", rel)?;
    if !dir.is_dir() {
        return Err(ActorError::invalid(
            "path",
            format!("{rel:?} is not a folder"),
        ));
    }
    let root = project
        .canonicalize()
        .map_err(|e| ActorError::unavailable(e.to_string()))?;
    let prefix: String = paths::components("path", rel)?
        .iter()
        .map(|p| format!("{p}/"))
        .collect();
    let mut entries = Vec::new();
    let read = std::fs::read_dir(&dir)
        .map_err(|e| ActorError::unavailable(format!("reading {rel:?}: {e}")))?;
    for item in read.flatten() {
        let Ok(name) = item.file_name().into_string() else {
            continue; // not UTF-8: not addressable through the contract
        };
        if prefix.is_empty() && name == ".rho" {
            continue;
        }
        let full = item.path();
        // Follow a symlink only if it stays inside the project.
        let meta = match full.canonicalize() {
            Ok(real) if real.starts_with(&root) && !real.starts_with(root.join(".rho")) => {
                std::fs::metadata(&real)
            }
            _ => continue,
        };
        let Ok(meta) = meta else { continue };
        let modified_ms = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map(|d| d.as_millis() as i64);
        let is_dir = meta.is_dir();
        entries.push(Entry {
            path: format!("{prefix}{name}"),
            name,
            kind: if is_dir { "directory" } else { "file" },
            bytes: (!is_dir).then_some(meta.len()),
            modified_ms,
        });
    }
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    let start = match cursor {
        Some(c) => entries.partition_point(|e| e.name.as_str() <= c),
        None => 0,
    };
    let rest = entries.split_off(start.min(entries.len()));
    let more = rest.len() > PAGE;
    let page: Vec<Entry> = rest.into_iter().take(PAGE).collect();
    Ok(Page {
        next: if more {
            page.last().map(|e| e.name.clone())
        } else {
            None
        },
        entries: page,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_sorted_hidden_and_inside() {
        let project = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(project.path().join(".rho")).unwrap();
        std::fs::create_dir(project.path().join("sub")).unwrap();
        std::fs::write(project.path().join("sub/x.csv"), "a,b\n").unwrap();
        for i in 0..250 {
            std::fs::write(project.path().join(format!("f{i:03}")), "x").unwrap();
        }
        std::os::unix::fs::symlink(outside.path(), project.path().join("zz-out")).unwrap();
        let first = list(project.path(), "", None).unwrap();
        assert_eq!(first.entries.len(), PAGE);
        assert_eq!(first.entries[0].name, "f000");
        assert!(first.entries.iter().all(|e| e.name != ".rho"));
        let second = list(project.path(), "", first.next.as_deref()).unwrap();
        let names: Vec<_> = second.entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names.len(), 51, "{names:?}");
        assert_eq!(
            names.last(),
            Some(&"sub"),
            "the outside symlink is not listed"
        );
        assert!(second.next.is_none());
        let sub = list(project.path(), "sub", None).unwrap();
        assert_eq!(sub.entries[0].path, "sub/x.csv");
        assert_eq!(sub.entries[0].bytes, Some(4));
        assert_eq!(
            list(project.path(), ".rho", None).unwrap_err().code(),
            "invalid"
        );
    }
}
