//! Owner kernel (Notebook): live R and Python sessions shared by the person and the Agent; cells and sessions journaled as one per-project entity.

mod bridge;
pub mod contract;
pub mod decide;
#[cfg(test)]
mod ends_tests;
pub mod entity;
pub mod events;
pub mod handlers;
pub mod live;
#[cfg(test)]
mod model_tests;
pub mod ops;
mod start;
mod store;

pub use decide::{plan_session, KernelCommand, KernelReply, QueueLimits, SessionPlan};
pub use entity::KernelEntity;
pub use events::KernelEvent;

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner kernel in the owner table: one kernel entity per project; recovery is its entity's
/// `reconcile` (sessions `rho-closed`, running cells `unknown`, waiting ones `not-run`).
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Kernel,
    requires: &[],
    operations: &[contract::OPERATIONS, contract::REMOTE_OPERATIONS],
    entries: &[],
    actions: &[],
    kinds: &[per_project!(KernelEntity, kernel)],
    recover: None,
};
