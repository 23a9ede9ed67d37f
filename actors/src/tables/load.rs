//! Loading one resource version as a validated typed table, through the table cache.

use super::cache::Entry;
use super::read;
use super::schema::Schema;
use super::TablesError;
use crate::error::ActorError;
use crate::files::messages::{blocking, load};
use crate::files::{store, FilesError, ResourceRecord};
use crate::project_actor::ProjectActor;
use std::future::Future;
use std::sync::Arc;
use uuid::Uuid;

/// Limits a table read checks.
#[derive(Debug, Clone, Copy)]
pub struct TableBounds {
    pub max_file_bytes: u64,
    pub max_rows: u64,
}

fn key(rec: &ResourceRecord) -> Option<String> {
    rec.facts
        .table
        .as_ref()
        .map(|d| format!("{}:{:?}", rec.facts.sha256, d))
}

/// The validated table of resource `id` at `version` (read and validated in full on first use).
pub(crate) fn read_table(
    act: &mut ProjectActor,
    id: Uuid,
    version: u64,
    bounds: TableBounds,
) -> impl Future<Output = Result<(ResourceRecord, Arc<Entry>), TablesError>> {
    let cache = act.service_state().tables.clone();
    let probe = cache.clone();
    let loading = load(act, id, version, bounds.max_file_bytes, move |rec| {
        key(rec).is_some_and(|k| probe.get(&k).is_some())
    });
    let dir = act.dir().to_path_buf();
    async move {
        let (rec, bytes) = loading.await?;
        let decl = rec.facts.table.clone().ok_or_else(|| {
            ActorError::invalid(
                "resource",
                "the resource declares no table (register it with table:{...})",
            )
        })?;
        let schema = Schema::from_decl(&decl)?;
        let k = key(&rec).unwrap_or_default();
        if bytes.is_none() {
            if let Some(e) = cache.get(&k) {
                return Ok((rec, e));
            }
        }
        let facts = rec.facts.clone();
        let path = rec.path.clone();
        let entry = tokio::task::spawn_blocking(move || {
            let bytes = match bytes {
                Some(b) => b,
                None => store::load_version(&dir, &path, &facts, bounds.max_file_bytes)?,
            };
            let table = read::read(&schema, &bytes, bounds.max_rows)?;
            Ok::<_, TablesError>(cache.put(k, table))
        })
        .await
        .map_err(|e| TablesError::from(ActorError::internal(e.to_string())))??;
        Ok((rec, entry))
    }
}

/// Runs CPU work on a blocking thread.
pub(crate) async fn compute<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, TablesError> + Send + 'static,
) -> Result<T, TablesError> {
    let r = blocking(move || Ok(f()))
        .await
        .map_err(|e: FilesError| TablesError::Files(e))?;
    r
}
