//! The few most recently read tables, by content digest and declaration, with their recent row orders.
//!
//! Keys are content-addressed (SHA-256 of the bytes plus the declaration), so an entry can never
//! describe other bytes; whether a file still has those bytes is Files' check.

use super::read::Table;
use std::sync::{Arc, Mutex};

const TABLES: usize = 4;
const ORDERS: usize = 8;

/// One cached table and its recent query orders.
pub struct Entry {
    pub key: String,
    pub table: Arc<Table>,
    orders: Mutex<Vec<(String, Arc<Vec<u32>>)>>,
}

impl Entry {
    /// The cached order of `query`, if any.
    pub fn cached_order(&self, query: &str) -> Option<Arc<Vec<u32>>> {
        let orders = self.lock();
        orders
            .iter()
            .find(|(q, _)| q == query)
            .map(|(_, o)| o.clone())
    }

    /// The order of `query`, computed by `make` on a miss.
    pub fn order(&self, query: &str, make: impl FnOnce() -> Vec<u32>) -> Arc<Vec<u32>> {
        if let Some((_, o)) = self.lock().iter().find(|(q, _)| q == query) {
            return o.clone();
        }
        let order = Arc::new(make());
        let mut orders = self.lock();
        if orders.len() >= ORDERS {
            orders.remove(0);
        }
        orders.push((query.to_string(), order.clone()));
        order
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<(String, Arc<Vec<u32>>)>> {
        self.orders.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The few most recently read tables of one service (a clone is the same cache).
#[derive(Clone, Default)]
pub struct TableCache(Arc<Mutex<Vec<Arc<Entry>>>>);

impl std::fmt::Debug for TableCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TableCache").finish_non_exhaustive()
    }
}

impl TableCache {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Arc<Entry>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cached entry of `key`, if any (and marks it recently used).
    pub fn get(&self, key: &str) -> Option<Arc<Entry>> {
        let mut c = self.lock();
        let i = c.iter().position(|e| e.key == key)?;
        let e = c.remove(i);
        c.push(e.clone());
        Some(e)
    }

    /// Caches a freshly read table.
    pub fn put(&self, key: String, table: Table) -> Arc<Entry> {
        let e = Arc::new(Entry {
            key,
            table: Arc::new(table),
            orders: Mutex::new(Vec::new()),
        });
        let mut c = self.lock();
        c.retain(|o| o.key != e.key);
        if c.len() >= TABLES {
            c.remove(0);
        }
        c.push(e.clone());
        e
    }
}
