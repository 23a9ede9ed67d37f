//! What the project actors of one service share (never two services): the Hosts it started, the runs it watches, verified file digests, the table cache.

use crate::files::store::Verified;
use crate::runs::host::OwnedHosts;
use crate::runs::watch::Watched;
use crate::tables::cache::TableCache;

/// Handles to one service's shared state; a clone is the same state. Each `ServiceActor`
/// hands its projects a fresh one, so two services in one process (tests) never share it.
#[derive(Debug, Clone, Default)]
pub struct ServiceState {
    /// Core Hosts this service started (only those are stopped at its shutdown).
    pub hosts: OwnedHosts,
    /// Runs being watched to their end: one watcher each, also across a project's reopen.
    pub(crate) watched: Watched,
    /// Files whose digest was verified, with the size and mtime they had then.
    pub(crate) verified: Verified,
    /// The few most recently read tables.
    pub(crate) tables: TableCache,
    /// Console commands being followed to their end: one follower each.
    pub(crate) console: crate::console::follow::Followed,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::files::decl::{ColumnDecl, TableDecl};
    use crate::tables::schema::Schema;

    #[test]
    fn clones_share_the_state_and_two_services_do_not() {
        let decl = TableDecl {
            format: "csv".into(),
            columns: vec![ColumnDecl {
                name: "a".into(),
                column_type: "integer".into(),
                missing: None,
            }],
            key: None,
        };
        let table =
            crate::tables::read::read(&Schema::from_decl(&decl).unwrap(), b"a\n1\n", 10).unwrap();
        let one = ServiceState::default();
        let same = one.clone();
        let other = ServiceState::default();
        one.tables.put("k".into(), table);
        assert!(same.tables.get("k").is_some());
        assert!(other.tables.get("k").is_none());
    }
}
