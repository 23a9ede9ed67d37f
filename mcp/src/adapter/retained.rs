//! Retained results: replies too large to return inline, kept immutable on disk under a scoped
//! reference (`rho-result:<id>`) until released, bounded by count and total bytes.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::Value;

use super::fsio;
use super::refusal::Refusal;

/// The prefix of every retained-result reference.
pub const PREFIX: &str = "rho-result:";

/// The retained results of one connection.
#[derive(Debug)]
pub struct Retained {
    dir: PathBuf,
    max_results: usize,
    max_bytes: u64,
    /// id -> bytes on disk.
    index: BTreeMap<String, u64>,
    total: u64,
    /// The last result read, parsed (paging reads the same result again and again).
    last: Option<(String, Arc<Value>)>,
}

/// A result just retained.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Kept {
    /// Its reference.
    pub reference: String,
    /// Its serialized size.
    pub bytes: u64,
}

impl Retained {
    /// Opens (and indexes) the results folder.
    pub fn open(dir: PathBuf, max_results: usize, max_bytes: u64) -> std::io::Result<Self> {
        fsio::private_dir(&dir)?;
        let mut index = BTreeMap::new();
        let mut total = 0;
        for entry in std::fs::read_dir(&dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(id) = name.strip_suffix(".json") else {
                continue;
            };
            if id.starts_with('.') || uuid::Uuid::try_parse(id).is_err() {
                continue;
            }
            let bytes = entry.metadata()?.len();
            total += bytes;
            index.insert(id.to_string(), bytes);
        }
        Ok(Self {
            dir,
            max_results,
            max_bytes,
            index,
            total,
            last: None,
        })
    }

    /// Count and bytes retained.
    pub fn usage(&self) -> (usize, u64) {
        (self.index.len(), self.total)
    }

    /// Refuses a new call when no further result could be retained.
    pub fn check_capacity(&self) -> Result<(), Refusal> {
        if self.index.len() >= self.max_results {
            return Err(Refusal::limit(
                "RHO_MAX_RESULTS",
                self.max_results as u64,
                format!(
                    "{} results are retained (the maximum); release some with rho_read {{ref, release:true}} before a new call",
                    self.index.len()
                ),
            ));
        }
        if self.total >= self.max_bytes {
            return Err(Refusal::limit(
                "RHO_MAX_RETAINED_RESULT_BYTES",
                self.max_bytes,
                "retained results use the whole byte budget; release some with rho_read {ref, release:true} before a new call",
            ));
        }
        Ok(())
    }

    /// Keeps `value` (the serialized reply value) of `operation`.
    pub fn retain(
        &mut self,
        operation: &str,
        identity: &Value,
        value: &[u8],
    ) -> Result<Kept, Refusal> {
        let mut record = Vec::with_capacity(value.len() + 128);
        record.extend_from_slice(b"{\"operation\":");
        record.extend_from_slice(&serde_json::to_vec(operation).unwrap_or_default());
        record.extend_from_slice(b",\"identity\":");
        record.extend_from_slice(&serde_json::to_vec(identity).unwrap_or_default());
        record.extend_from_slice(b",\"value\":");
        record.extend_from_slice(value);
        record.push(b'}');
        let bytes = record.len() as u64;
        if self.index.len() >= self.max_results || self.total + bytes > self.max_bytes {
            return Err(Refusal::limit(
                "RHO_MAX_RETAINED_RESULT_BYTES",
                self.max_bytes,
                format!("the {bytes}-byte reply does not fit the retained-result budget"),
            ));
        }
        let id = uuid::Uuid::new_v4().to_string();
        fsio::write_once(&self.dir.join(format!("{id}.json")), &record).map_err(|e| {
            Refusal::new(
                "internal",
                format!("the result could not be retained: {e}"),
                serde_json::json!({}),
            )
        })?;
        self.index.insert(id.clone(), bytes);
        self.total += bytes;
        Ok(Kept {
            reference: format!("{PREFIX}{id}"),
            bytes,
        })
    }

    fn id_of(&self, reference: &str) -> Result<String, Refusal> {
        reference
            .strip_prefix(PREFIX)
            .filter(|id| self.index.contains_key(*id))
            .map(str::to_string)
            .ok_or_else(|| Refusal::not_found(format!("retained result {reference:?}")))
    }

    /// The retained value.
    pub fn load(&mut self, reference: &str) -> Result<Arc<Value>, Refusal> {
        let id = self.id_of(reference)?;
        if let Some((last, value)) = &self.last {
            if *last == id {
                return Ok(Arc::clone(value));
            }
        }
        let bytes = std::fs::read(self.dir.join(format!("{id}.json")))
            .map_err(|_| Refusal::not_found(format!("retained result {reference:?}")))?;
        let mut record: Value = serde_json::from_slice(&bytes).map_err(|e| {
            Refusal::new(
                "internal",
                format!("retained result {reference:?} is unreadable: {e}"),
                serde_json::json!({}),
            )
        })?;
        let value = Arc::new(
            record
                .get_mut("value")
                .map(Value::take)
                .unwrap_or(Value::Null),
        );
        self.last = Some((id, Arc::clone(&value)));
        Ok(value)
    }

    /// Drops a retained result.
    pub fn release(&mut self, reference: &str) -> Result<u64, Refusal> {
        let id = self.id_of(reference)?;
        fsio::remove(&self.dir.join(format!("{id}.json"))).map_err(|e| {
            Refusal::new(
                "internal",
                format!("the result could not be released: {e}"),
                serde_json::json!({}),
            )
        })?;
        let bytes = self.index.remove(&id).unwrap_or(0);
        if self.last.as_ref().is_some_and(|(l, _)| *l == id) {
            self.last = None;
        }
        self.total -= bytes;
        Ok(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn retain_load_release_and_reopen() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Retained::open(dir.path().join("results"), 2, 1 << 20).unwrap();
        let a = r
            .retain("op", &json!({"operationId": "x"}), b"[1,2,3]")
            .unwrap();
        assert!(a.reference.starts_with(PREFIX));
        assert_eq!(*r.load(&a.reference).unwrap(), json!([1, 2, 3]));
        let mut again = Retained::open(dir.path().join("results"), 2, 1 << 20).unwrap();
        assert_eq!(again.usage(), (1, a.bytes), "results survive a restart");
        assert_eq!(*again.load(&a.reference).unwrap(), json!([1, 2, 3]));
        r.release(&a.reference).unwrap();
        assert_eq!(r.load(&a.reference).unwrap_err().code, "not_found");
        assert_eq!(r.release(&a.reference).unwrap_err().code, "not_found");
        assert_eq!(
            r.load("rho-result:../../etc").unwrap_err().code,
            "not_found"
        );
    }

    #[test]
    fn capacity_is_checked_by_count_and_bytes_and_keeps_results() {
        let dir = tempfile::tempdir().unwrap();
        let mut r = Retained::open(dir.path().join("results"), 2, 200).unwrap();
        r.check_capacity().unwrap();
        let a = r.retain("op", &Value::Null, b"1").unwrap();
        r.retain("op", &Value::Null, b"2").unwrap();
        let full = r.check_capacity().unwrap_err();
        assert_eq!(full.details["limit"], "RHO_MAX_RESULTS");
        assert_eq!(
            *r.load(&a.reference).unwrap(),
            json!(1),
            "exhaustion keeps results"
        );
        r.release(&a.reference).unwrap();
        r.check_capacity().unwrap();
        let big = vec![b'1'; 300];
        assert_eq!(
            r.retain("op", &Value::Null, &big).unwrap_err().code,
            "limit"
        );
        assert_eq!(r.usage().0, 1);
    }
}
