//! Registered actions (`capability.list` `actions`): what an action declares; each owner declares its own next to its contract and `registry::actions` collects them.

use crate::owners::Owner;

/// A runtime an action needs besides owners (found, or selected, at start).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Runtime {
    /// A Core binary to host managed runs (`--core` / `RHO_CORE_BINARY`, or this executable).
    Core,
    /// An `Rscript` (`--rscript` / `RHO_RSCRIPT`, or on PATH).
    Rscript,
}

impl Runtime {
    pub fn name(self) -> &'static str {
        match self {
            Runtime::Core => "core",
            Runtime::Rscript => "rscript",
        }
    }
}

/// One registered action.
#[derive(Debug, Clone, Copy)]
pub struct ActionSpec {
    /// e.g. `r.execute`.
    pub name: &'static str,
    pub version: &'static str,
    /// The owner that provides it.
    pub owner: Owner,
    /// Owners it cannot run without, in the order they are checked (the provider first).
    pub needs: &'static [Owner],
    /// Runtimes it cannot run without.
    pub runtimes: &'static [Runtime],
    /// The operation that submits it.
    pub submit: &'static str,
    pub summary: &'static str,
}
