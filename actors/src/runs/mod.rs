//! Owner r, managed execution: `r.execute` runs delivered once to the project's Core Host, observed, stopped.

pub mod actions;
pub mod announce;
pub mod check;
pub mod config;
pub mod context;
pub mod contract;
pub mod entity;
pub mod export;
pub mod freeze;
pub mod handlers;
pub mod host;
pub mod model;
mod outputs;
pub mod reconcile;
pub mod render;
pub mod slurm;
mod slurm_facts;
mod slurm_login;
pub(crate) mod slurm_place;
pub mod watch;

pub use entity::{RunCommand, RunEvent, RunsEntity};
pub use model::{CoreIdentity, RunRecord};

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner r in the owner table: managed runs here, the reading side in `objects/`.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::R,
    requires: &[Owner::Files],
    operations: &[contract::OPERATIONS, crate::objects::contract::OPERATIONS],
    entries: &[crate::objects::entry::ENTRY],
    actions: actions::ACTIONS,
    kinds: &[per_project!(RunsEntity, runs)],
    recover: Some(reconcile::recover),
};
