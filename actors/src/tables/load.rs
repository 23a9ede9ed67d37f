//! Loading one resource version as a validated typed table, through the table cache.

use super::cache::Entry;
use super::read::{self, Table};
use super::schema::Schema;
use super::TablesError;
use crate::error::ActorError;
use crate::files::handlers::{blocking, load_with};
use crate::files::stream::stream_version;
use crate::files::{FilesError, ResourceRecord, VersionFacts};
use crate::project_actor::ProjectActor;
use std::future::Future;
use std::path::Path;
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

/// The schema a resource version declares.
fn schema_of(rec: &ResourceRecord) -> Result<Schema, ActorError> {
    let decl = rec.facts.table.as_ref().ok_or_else(|| {
        ActorError::invalid(
            "resource",
            "the resource declares no table (register it with table:{...})",
        )
    })?;
    Schema::from_decl(decl)
}

/// The validated table of resource `id` at `version` (read and validated in full on first use,
/// its digest checked while it parses).
pub(crate) fn read_table(
    act: &mut ProjectActor,
    id: Uuid,
    version: u64,
    bounds: TableBounds,
) -> impl Future<Output = Result<(ResourceRecord, Arc<Entry>), TablesError>> {
    let cache = act.service_state().tables.clone();
    let probe = cache.clone();
    let loading = load_with(
        act,
        (id, version),
        bounds.max_file_bytes,
        move |rec| key(rec).is_some_and(|k| probe.get(&k).is_some()),
        // Cached only once Files says the digest matched: a parse of changed bytes is dropped.
        move |rec, src| read::read_from(&schema_of(rec).ok()?, src, bounds.max_rows),
        move |rec, bytes| read::read_exact(&schema_of(rec)?, bytes, bounds.max_rows),
    );
    let dir = act.dir().to_path_buf();
    async move {
        let (rec, made) = loading.await?;
        let schema = schema_of(&rec)?;
        let k = key(&rec).unwrap_or_default();
        if let Some(table) = made {
            return Ok((rec, cache.put(k, table?)));
        }
        if let Some(e) = cache.get(&k) {
            return Ok((rec, e));
        }
        // Evicted since the probe: read it again.
        let (facts, path) = (rec.facts.clone(), rec.path.clone());
        let entry = compute(move || {
            let table = read_version(&dir, &path, &facts, &schema, bounds)?;
            Ok(cache.put(k, table))
        })
        .await?;
        Ok((rec, entry))
    }
}

/// Reads the exact bytes of one version (`stale` when an uncaptured file changed) and
/// validates them as the typed table `schema` declares, each piece hashed as it is read.
pub fn read_version(
    project: &Path,
    rel_path: &str,
    facts: &VersionFacts,
    schema: &Schema,
    bounds: TableBounds,
) -> Result<Table, TablesError> {
    stream_version(
        project,
        rel_path,
        facts,
        bounds.max_file_bytes,
        |src| read::read_from(schema, src, bounds.max_rows),
        |bytes| read::read_exact(schema, bytes, bounds.max_rows),
    )?
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
