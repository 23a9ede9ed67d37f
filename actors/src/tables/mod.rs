//! Owner Tables: typed reading of declared CSV and JSON-rows tables, `data.page`, `data.compare` and selections (set, read).

pub mod cache;
pub mod column;
pub mod contract;
pub mod csv;
pub mod entity;
pub mod entry;
pub mod handlers;
pub mod keys;
pub mod keyset;
pub mod load;
#[cfg(test)]
mod memory_tests;
pub mod page_json;
#[cfg(test)]
mod page_tests;
mod parallel;
mod pieces;
pub mod query;
pub mod read;
mod record;
mod scan;
pub mod schema;
#[cfg(test)]
mod tests;

use crate::error::ActorError;
use crate::files::FilesError;

use crate::owner_table::{per_project, OwnerSpec};
use crate::owners::Owner;

/// Owner Tables in the owner table: one selections entity per project.
pub(crate) const SPEC: OwnerSpec = OwnerSpec {
    owner: Owner::Tables,
    requires: &[Owner::Files],
    operations: &[contract::OPERATIONS],
    entries: &[entry::ENTRY],
    actions: &[],
    kinds: &[per_project!(entity::SelectionsEntity, selections)],
    recover: None,
};

/// A refusal of a table read: from Files (including `stale`), or cells that do not fit the declaration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TablesError {
    #[error(transparent)]
    Files(#[from] FilesError),
    #[error("the table does not fit its declaration ({} problems listed)", .0.len())]
    Problems(Vec<record::Problem>),
}

impl From<ActorError> for TablesError {
    fn from(e: ActorError) -> Self {
        TablesError::Files(FilesError::Actor(e))
    }
}
