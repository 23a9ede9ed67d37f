//! The shipped skills: short guidance per owner (markdown in `skills/`), each named by the SHA-256 of its exact body.

use super::catalog::reference;
use crate::contract::OperationSpec;
use std::sync::OnceLock;

/// One shipped skill.
#[derive(Debug, Clone)]
pub struct Skill {
    /// The owner label it guides (`service`, `documents`, ...).
    pub name: &'static str,
    /// One line for the owner summaries of `capability.index`.
    pub summary: &'static str,
    /// The exact markdown body `capability.resolve` returns.
    pub body: &'static str,
    /// `sha256:<hex>` of `body`.
    pub reference: String,
}

const SOURCES: &[(&str, &str, &str)] = &[
    (
        "service",
        "The project itself: folder listing, envelope, errors and identities.",
        include_str!("skills/service.md"),
    ),
    (
        "documents",
        "Shared text buffers: open, read, edit with versions and changeIds, save, undo.",
        include_str!("skills/documents.md"),
    ),
    (
        "files",
        "Registered resources {id, version}: register, capture, list, read bytes.",
        include_str!("skills/files.md"),
    ),
    (
        "tables",
        "Typed pages of CSV and JSON rows, comparisons and shared selections.",
        include_str!("skills/tables.md"),
    ),
    (
        "agent",
        "Frozen contexts, external bindings and the record of your calls.",
        include_str!("skills/agent.md"),
    ),
    (
        "r",
        "Managed R runs through action.submit with action r.execute; object snapshots.",
        include_str!("skills/r.md"),
    ),
    (
        "media",
        "Media facts (PNG, JPEG, SVG, PDF) and media rectangles as contexts.",
        include_str!("skills/media.md"),
    ),
];

/// Every shipped skill.
pub fn all() -> &'static [Skill] {
    static SKILLS: OnceLock<Vec<Skill>> = OnceLock::new();
    SKILLS.get_or_init(|| {
        SOURCES
            .iter()
            .map(|(name, summary, body)| Skill {
                name,
                summary,
                body,
                reference: reference(body.as_bytes()),
            })
            .collect()
    })
}

/// The skill of an owner label (the service's own guidance for owners without one).
pub fn for_owner(label: &str) -> &'static Skill {
    let label = match label {
        "charts" => "media",
        "requirements" => "r",
        other => other,
    };
    let all = all();
    all.iter().find(|s| s.name == label).unwrap_or(&all[0])
}

/// The skill relevant to one operation (`action.*` runs R).
pub fn for_operation(op: &OperationSpec) -> &'static Skill {
    if op.name.starts_with("action.") || op.name.starts_with("requirements.") {
        return for_owner("r");
    }
    for_owner(super::catalog::owner_label(op))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skills_are_hashed_and_found() {
        assert_eq!(for_owner("documents").name, "documents");
        assert_eq!(for_owner("charts").name, "media");
        assert_eq!(for_owner("kernel").name, "service");
        for s in all() {
            assert!(s.reference.starts_with("sha256:") && s.reference.len() == 71);
            assert!(s.body.starts_with("# "));
        }
        assert!(for_owner("r").body.contains("r.execute"));
    }
}
