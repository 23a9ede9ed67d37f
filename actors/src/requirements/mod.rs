//! Owner Requirements: declared R packages, the bounded base-R probe, explicit preparation into the project library.

pub mod announce;
pub mod contract;
pub mod entity;
pub mod handlers;
pub mod install;
pub mod model;
pub mod probe;

pub use entity::{PrepareOutcome, RequirementsEntity};
pub use model::{Probe, Repos, Requirement};

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner Requirements in the owner table: one requirements entity per project.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Requirements,
    requires: &[],
    operations: &[contract::OPERATIONS],
    entries: &[],
    actions: &[],
    kinds: &[per_project!(RequirementsEntity, requirements)],
    recover: None,
};
