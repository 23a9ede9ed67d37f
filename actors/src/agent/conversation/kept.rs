//! Which files a message kept: the explicit file locations of its steps, and the files that
//! changed while it ran (the project compared at its start and end by size and modification
//! time, `conversations.maxComparedFiles` at most), bounded by `maxCaptureFiles` and
//! `maxCaptureBytes`, each file left out named with the limit's key.

use super::record::ToolStep;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path};
use std::time::SystemTime;

/// The `--limits` keys of the bounds applied here.
pub const COMPARED_FILES: &str = "conversations.maxComparedFiles";
pub const CAPTURE_FILES: &str = "conversations.maxCaptureFiles";
pub const CAPTURE_BYTES: &str = "conversations.maxCaptureBytes";

/// Bounds on what a message keeps of the project's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeepLimits {
    pub compared_files: u64,
    pub capture_files: u64,
    pub capture_bytes: u64,
}

impl From<&crate::limits::ConversationLimits> for KeepLimits {
    fn from(l: &crate::limits::ConversationLimits) -> Self {
        KeepLimits {
            compared_files: l.max_compared_files,
            capture_files: l.max_capture_files,
            capture_bytes: l.max_capture_bytes,
        }
    }
}

impl Default for KeepLimits {
    fn default() -> Self {
        KeepLimits::from(&crate::limits::ConversationLimits::default())
    }
}

/// The project's regular files (outside `.rho/` and `.git/`) by relative path: size and
/// modification time. `full` is false when the walk stopped at the bound.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    files: BTreeMap<String, (u64, Option<SystemTime>)>,
    pub full: bool,
}

/// Walks `dir` (symbolic links are not followed), at most `max` files.
pub fn scan(dir: &Path, max: u64) -> Scan {
    let mut out = Scan {
        files: BTreeMap::new(),
        full: true,
    };
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for e in entries {
            let Some(name) = e.file_name().to_str().map(str::to_string) else {
                continue;
            };
            if prefix.is_empty() && (name == ".rho" || name == ".git") {
                continue;
            }
            let Ok(kind) = e.file_type() else { continue };
            let rel = format!("{prefix}{name}");
            if kind.is_dir() {
                stack.push((e.path(), format!("{rel}/")));
            } else if kind.is_file() {
                if out.files.len() as u64 >= max {
                    out.full = false;
                    return out;
                }
                let meta = e.metadata().ok();
                let size = meta.as_ref().map_or(0, |m| m.len());
                out.files
                    .insert(rel, (size, meta.and_then(|m| m.modified().ok())));
            }
        }
    }
    out
}

/// Files new or changed between `before` and `after`, sorted.
pub fn changed(before: &Scan, after: &Scan) -> Vec<String> {
    after
        .files
        .iter()
        .filter(|(path, facts)| before.files.get(*path) != Some(facts))
        .map(|(path, _)| path.clone())
        .collect()
}

/// A step's input as a project-relative path, when it names a file inside the project.
fn relative(dir: &Path, input: &str) -> Option<String> {
    let p = Path::new(input.trim());
    let rel = if p.is_absolute() {
        p.strip_prefix(dir)
            .ok()
            .or_else(|| p.strip_prefix(dir.canonicalize().ok()?).ok())?
            .to_path_buf()
    } else {
        p.to_path_buf()
    };
    let parts: Vec<&str> = rel
        .components()
        .map(|c| match c {
            Component::Normal(s) => s.to_str(),
            _ => None,
        })
        .collect::<Option<_>>()?;
    if parts.is_empty() || parts[0] == ".rho" {
        return None;
    }
    Some(parts.join("/"))
}

/// The files a message's edits named (explicit file locations), relative to `dir`.
pub fn named(dir: &Path, steps: &[ToolStep]) -> Vec<String> {
    steps
        .iter()
        .filter(|s| matches!(s.kind.as_str(), "edit" | "delete" | "move"))
        .filter_map(|s| relative(dir, s.input.as_deref()?))
        .collect()
}

/// The files to keep (existing regular files of `dir`, sorted, bounded) and `(path, key)` of
/// each one a bound left out; `incomplete` adds the comparison's own bound.
pub fn choose(
    dir: &Path,
    named: Vec<String>,
    changed: Vec<String>,
    incomplete: bool,
    limits: &KeepLimits,
) -> (Vec<String>, Vec<(String, String)>) {
    let all: BTreeSet<String> = named.into_iter().chain(changed).collect();
    let mut kept = Vec::new();
    let mut omitted = Vec::new();
    if incomplete {
        omitted.push((
            "(the rest of the project)".to_string(),
            COMPARED_FILES.to_string(),
        ));
    }
    let mut bytes = 0u64;
    for path in all {
        let Ok(meta) = std::fs::symlink_metadata(dir.join(&path)) else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        if kept.len() as u64 >= limits.capture_files {
            omitted.push((path, CAPTURE_FILES.to_string()));
        } else if bytes + meta.len() > limits.capture_bytes {
            omitted.push((path, CAPTURE_BYTES.to_string()));
        } else {
            bytes += meta.len();
            kept.push(path);
        }
    }
    (kept, omitted)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_and_named_files_are_kept_within_their_bounds() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        std::fs::create_dir_all(dir.join(".rho/x")).unwrap();
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(dir.join(".rho/x/j"), "journal").unwrap();
        std::fs::write(dir.join("same.txt"), "same").unwrap();
        std::fs::write(dir.join("sub/old.txt"), "old").unwrap();
        let before = scan(dir, 100);
        assert!(before.full);
        std::fs::write(dir.join("sub/old.txt"), "changed!").unwrap();
        std::fs::write(dir.join("new.txt"), "new").unwrap();
        let after = scan(dir, 100);
        assert_eq!(changed(&before, &after), ["new.txt", "sub/old.txt"]);
        assert!(!scan(dir, 2).full, "the bound stops the walk");
        let step = |kind: &str, input: &str| ToolStep {
            kind: kind.into(),
            input: Some(input.into()),
            ..ToolStep::default()
        };
        let steps = [
            step("edit", &dir.join("same.txt").display().to_string()),
            step("edit", "/elsewhere/x.txt"),
            step("execute", "same.txt"),
            step("edit", "../up.txt"),
        ];
        assert_eq!(named(dir, &steps), ["same.txt"]);
        let limits = KeepLimits {
            compared_files: 100,
            capture_files: 2,
            capture_bytes: 1000,
        };
        let (kept, omitted) = choose(
            dir,
            named(dir, &steps),
            changed(&before, &after),
            true,
            &limits,
        );
        assert_eq!(kept, ["new.txt", "same.txt"]);
        assert_eq!(
            omitted,
            [
                (
                    "(the rest of the project)".to_string(),
                    COMPARED_FILES.to_string()
                ),
                ("sub/old.txt".to_string(), CAPTURE_FILES.to_string())
            ]
        );
        let tight = KeepLimits {
            capture_bytes: 4,
            ..limits
        };
        let (kept, omitted) = choose(
            dir,
            vec![],
            vec!["new.txt".into(), "sub/old.txt".into()],
            false,
            &tight,
        );
        assert_eq!(kept, ["new.txt"]);
        assert_eq!(omitted[0].1, CAPTURE_BYTES);
    }
}
