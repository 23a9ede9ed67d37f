//! The capability owners, `--plugins` selection, and the dependencies between owners (CONVENTIONS, Owner selection).

use serde::Serialize;
use std::collections::BTreeSet;
use std::fmt;

/// One capability owner: the seed's nine packages plus Console and Notebook (`kernel`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Owner {
    Annotations,
    Documents,
    Files,
    R,
    Requirements,
    Tables,
    Media,
    Charts,
    Agent,
    Console,
    Kernel,
}

impl Owner {
    pub const ALL: [Owner; 11] = [
        Owner::Annotations,
        Owner::Documents,
        Owner::Files,
        Owner::R,
        Owner::Requirements,
        Owner::Tables,
        Owner::Media,
        Owner::Charts,
        Owner::Agent,
        Owner::Console,
        Owner::Kernel,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Owner::Annotations => "annotations",
            Owner::Documents => "documents",
            Owner::Files => "files",
            Owner::R => "r",
            Owner::Requirements => "requirements",
            Owner::Tables => "tables",
            Owner::Media => "media",
            Owner::Charts => "charts",
            Owner::Agent => "agent",
            Owner::Console => "console",
            Owner::Kernel => "kernel",
        }
    }

    pub fn parse(name: &str) -> Option<Owner> {
        Owner::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Owners this owner cannot work without (seed line 14). Action-level needs (r.execute needs
    /// Requirements, buffer scripts need Documents) are declared by the actions themselves.
    pub fn requires(self) -> &'static [Owner] {
        match self {
            Owner::Tables | Owner::Media | Owner::R => &[Owner::Files],
            Owner::Charts => &[Owner::Tables],
            Owner::Annotations => &[Owner::Documents],
            _ => &[],
        }
    }
}

impl fmt::Display for Owner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which owners `--plugins` selected. Selection gates new work only; replay always folds every owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    selected: BTreeSet<Owner>,
}

/// A `--plugins` value that names no owner.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown owner {0:?} in --plugins (known: annotations, documents, files, r, requirements, tables, media, charts, agent, console, kernel)")]
pub struct UnknownOwner(pub String);

impl Default for Selection {
    fn default() -> Self {
        Selection::all()
    }
}

impl Selection {
    pub fn all() -> Self {
        Selection {
            selected: Owner::ALL.into_iter().collect(),
        }
    }

    /// Parses `a,b,c`; the empty string selects none.
    pub fn parse(list: &str) -> Result<Selection, UnknownOwner> {
        let mut selected = BTreeSet::new();
        for name in list.split(',').map(str::trim).filter(|s| !s.is_empty()) {
            selected.insert(Owner::parse(name).ok_or_else(|| UnknownOwner(name.to_string()))?);
        }
        Ok(Selection { selected })
    }

    pub fn is_selected(&self, owner: Owner) -> bool {
        self.selected.contains(&owner)
    }

    pub fn selected(&self) -> impl Iterator<Item = Owner> + '_ {
        self.selected.iter().copied()
    }

    /// Owners missing for `owner` to be available: itself if unselected, else any unavailable dependency.
    pub fn missing_for(&self, owner: Owner) -> Vec<Owner> {
        if !self.is_selected(owner) {
            return vec![owner];
        }
        let mut missing = Vec::new();
        for dep in owner.requires() {
            for m in self.missing_for(*dep) {
                if !missing.contains(&m) {
                    missing.push(m);
                }
            }
        }
        missing
    }

    pub fn is_available(&self, owner: Owner) -> bool {
        self.missing_for(owner).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_and_dependencies() {
        assert!(Selection::parse("").unwrap().selected().next().is_none());
        assert_eq!(Selection::parse("files,bogus").unwrap_err().0, "bogus");
        let s = Selection::parse("charts,tables").unwrap();
        assert_eq!(s.missing_for(Owner::Charts), vec![Owner::Files]);
        assert_eq!(s.missing_for(Owner::Documents), vec![Owner::Documents]);
        let s = Selection::parse("files, r").unwrap();
        assert!(s.is_available(Owner::R));
        assert!(Selection::all().is_available(Owner::Charts));
    }
}
