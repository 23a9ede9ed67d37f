//! Owner console: a person's shell commands in the project, run under a detached guard,
//! recorded, stoppable, and still followed after a restart of the service.

pub mod contract;
pub mod entity;
pub mod follow;
pub mod handlers;
pub mod output;
pub mod process;
pub mod reconcile;
pub mod render;

pub use entity::{CommandRecord, ConsoleEntity, ConsoleEvent};

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner console in the owner table.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Console,
    requires: &[],
    operations: &[contract::OPERATIONS],
    entries: &[],
    actions: &[],
    kinds: &[per_project!(ConsoleEntity, console)],
    recover: Some(reconcile::recover),
};
