//! The parts of `data.page` a browser links by: the rows of a key-set (`in`) filter and the projected columns.

use super::read::Table;
use crate::error::ActorError;

/// Most keys one `in` filter names (the size of a selection).
pub const MAX_IN_KEYS: usize = super::entity::MAX_KEYS;

/// The rows, ascending, of the keys an `in` filter names (unknown keys match nothing).
/// `in` filters the table's key column only; its value is an array of strings.
pub fn in_rows(
    t: &Table,
    column: usize,
    value: Option<&serde_json::Value>,
    index: usize,
) -> Result<Vec<u32>, ActorError> {
    let bad = |reason: String| ActorError::Invalid {
        field: Some("filter".into()),
        index: Some(index as u64),
        reason,
    };
    match &t.schema.key {
        Some((k, _)) if *k == column => {}
        Some((k, _)) => {
            return Err(bad(format!(
                "in filters the key column {:?}",
                t.schema.columns[*k].name
            )))
        }
        None => return Err(bad("in needs a keyed table (table.key)".into())),
    }
    let Some(serde_json::Value::Array(keys)) = value else {
        return Err(bad("in takes an array of keys".into()));
    };
    if keys.len() > MAX_IN_KEYS {
        return Err(ActorError::Limit {
            limit: "selection.maxKeys".into(),
            value: MAX_IN_KEYS as u64,
        });
    }
    let mut rows = Vec::with_capacity(keys.len());
    for k in keys {
        let serde_json::Value::String(k) = k else {
            return Err(bad("in takes an array of string keys".into()));
        };
        if let Some(r) = t.key_row(k) {
            rows.push(r as u32);
        }
    }
    rows.sort_unstable();
    rows.dedup();
    Ok(rows)
}

/// The column indices a page returns: every column, or the named ones (`invalid` naming the
/// first unknown or repeated name).
pub fn projection(t: &Table, names: Option<&[String]>) -> Result<Vec<usize>, ActorError> {
    let Some(names) = names else {
        return Ok((0..t.schema.columns.len()).collect());
    };
    let mut out = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let bad = |reason: String| ActorError::Invalid {
            field: Some("columns".into()),
            index: Some(i as u64),
            reason,
        };
        let c = t
            .schema
            .column(name)
            .ok_or_else(|| bad(format!("no column {name:?}")))?;
        if out.contains(&c) {
            return Err(bad(format!("column {name:?} is named twice")));
        }
        out.push(c);
    }
    Ok(out)
}
