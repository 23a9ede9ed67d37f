//! The capability owners, `--plugins` selection, and the dependencies between owners (CONVENTIONS, Owner selection).

use std::collections::BTreeSet;

pub use crate::owner::Owner;

impl Owner {
    /// Owners this owner cannot work without (seed line 14), as its spec in the owner table
    /// declares. Action-level needs (r.execute needs Requirements, buffer scripts need
    /// Documents) are declared by the actions themselves.
    pub fn requires(self) -> &'static [Owner] {
        crate::owner_table::spec(self).map_or(&[], |s| s.requires)
    }
}

/// Which owners `--plugins` selected. Selection gates new work only; replay always folds every owner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    selected: BTreeSet<Owner>,
}

/// A `--plugins` value that names no owner.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown owner {:?} in --plugins (known: {})", .0, names(&Owner::ALL))]
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

    /// The owner gate of new work that needs `needs` (in order): the first one not available is
    /// `unavailable` naming what is missing. Retries of accepted identities never reach it.
    pub fn admit(&self, needs: &[Owner]) -> Result<(), OwnerUnavailable> {
        for owner in needs {
            let missing = self.missing_for(*owner);
            if !missing.is_empty() {
                return Err(OwnerUnavailable {
                    owner: *owner,
                    missing,
                });
            }
        }
        Ok(())
    }
}

/// New work needs an owner that is not available (unselected, or missing a dependency).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("owner {owner} is not available (missing: {})", names(missing))]
pub struct OwnerUnavailable {
    pub owner: Owner,
    pub missing: Vec<Owner>,
}

fn names(owners: &[Owner]) -> String {
    owners
        .iter()
        .map(|o| o.name())
        .collect::<Vec<_>>()
        .join(", ")
}

impl From<OwnerUnavailable> for crate::error::ActorError {
    fn from(e: OwnerUnavailable) -> Self {
        crate::error::ActorError::Unavailable {
            missing: e.missing.iter().map(|m| m.name().to_string()).collect(),
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selection_and_dependencies() {
        assert!(Selection::parse("").unwrap().selected().next().is_none());
        assert_eq!(Selection::parse("files,bogus").unwrap_err().0, "bogus");
        assert_eq!(
            Selection::parse("bogus").unwrap_err().to_string(),
            "unknown owner \"bogus\" in --plugins (known: annotations, documents, files, r, requirements, tables, media, charts, agent, console, kernel)"
        );
        let s = Selection::parse("charts,tables").unwrap();
        assert_eq!(s.missing_for(Owner::Charts), vec![Owner::Files]);
        assert_eq!(s.missing_for(Owner::Documents), vec![Owner::Documents]);
        let s = Selection::parse("files, r").unwrap();
        assert!(s.is_available(Owner::R));
        assert!(Selection::all().is_available(Owner::Charts));
        let s = Selection::parse("files,r").unwrap();
        assert!(s.admit(&[Owner::R]).is_ok());
        let e = s
            .admit(&[Owner::R, Owner::Requirements, Owner::Documents])
            .unwrap_err();
        assert_eq!(
            (e.owner, e.missing.clone()),
            (Owner::Requirements, vec![Owner::Requirements])
        );
        assert_eq!(
            e.to_string(),
            "owner requirements is not available (missing: requirements)"
        );
    }
}
