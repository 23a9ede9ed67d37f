//! Owner Charts: `data.plot` over the Tables reader and cache, and the `rho.scatter` UI entry.

pub mod contract;
pub mod entry;
pub mod handlers;
pub mod plot;

use crate::owner_table::OwnerSpec;
use crate::owners::Owner;

/// Owner Charts in the owner table (stateless).
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Charts,
    requires: &[Owner::Tables],
    operations: &[contract::OPERATIONS],
    entries: &[entry::ENTRY],
    actions: &[],
    kinds: &[],
    recover: None,
};
