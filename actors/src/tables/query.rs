//! Filtering and stable sorting of a typed table's rows (missing values last), by row index.

use super::column::{CellRef, ColumnData, Values};
use super::read::Table;
use super::schema::{Cell, ColumnType};
use crate::error::ActorError;
use std::cmp::Ordering;

/// A comparison of a filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Contains,
    Missing,
    /// The entity key is one of a set (the key column only; `keyset`).
    In,
}

impl Op {
    pub fn parse(s: &str) -> Option<Op> {
        Some(match s {
            "eq" => Op::Eq,
            "ne" => Op::Ne,
            "lt" => Op::Lt,
            "le" => Op::Le,
            "gt" => Op::Gt,
            "ge" => Op::Ge,
            "contains" => Op::Contains,
            "missing" => Op::Missing,
            "in" => Op::In,
            _ => return None,
        })
    }
}

/// One typed filter.
#[derive(Debug, Clone)]
pub struct Filter {
    pub column: usize,
    pub op: Op,
    pub value: Cell,
    /// The rows of an `in` filter's keys, ascending (empty for other ops).
    pub rows: Vec<u32>,
}

impl Filter {
    /// Whether row `r` passes this filter.
    fn passes(&self, t: &Table, r: u32) -> bool {
        match self.op {
            Op::In => self.rows.binary_search(&r).is_ok(),
            _ => keep(t.cell(self.column, r as usize), self),
        }
    }
}

/// One sort key.
#[derive(Debug, Clone, Copy)]
pub struct Sort {
    pub column: usize,
    pub descending: bool,
}

/// Types a filter's JSON value by its column, or says why it does not fit.
pub fn filter_value(
    ty: ColumnType,
    op: Op,
    v: Option<&serde_json::Value>,
    index: usize,
) -> Result<Cell, ActorError> {
    use serde_json::Value;
    let bad = |reason: &str| ActorError::Invalid {
        field: Some("filter".into()),
        index: Some(index as u64),
        reason: reason.to_string(),
    };
    if op == Op::Missing {
        return Ok(Cell::Missing);
    }
    let v = v.ok_or_else(|| bad("this operation needs a value"))?;
    if op == Op::Contains {
        return match (ty, v) {
            (ColumnType::String | ColumnType::Date | ColumnType::DateTime, Value::String(s)) => {
                Ok(Cell::Text(s.as_str().into()))
            }
            _ => Err(bad("contains takes a string and a text column")),
        };
    }
    let col = super::schema::Column {
        name: String::new(),
        ty,
        missing: None,
    };
    match (ty, v) {
        (ColumnType::Integer, Value::Number(n)) => n
            .as_i64()
            .map(Cell::Int)
            .ok_or_else(|| bad("not an integer")),
        (ColumnType::Number, Value::Number(n)) => {
            n.as_f64().map(Cell::Num).ok_or_else(|| bad("not a number"))
        }
        (ColumnType::Boolean, Value::Bool(b)) => Ok(Cell::Bool(*b)),
        (_, Value::String(s)) if ty != ColumnType::Number && ty != ColumnType::Boolean => {
            super::schema::type_text(&col, s).map_err(|r| bad(&r))
        }
        _ => Err(bad("the value does not fit the column's type")),
    }
}

/// Order of two non-missing cells of one column.
pub fn cmp(a: &Cell, b: &Cell) -> Ordering {
    cmp_ref(view(a), view(b))
}

/// Order of two cells of one column (missing last).
pub fn cmp_ref(a: CellRef<'_>, b: CellRef<'_>) -> Ordering {
    match (a, b) {
        (CellRef::Int(x), CellRef::Int(y)) => x.cmp(&y),
        (CellRef::Num(x), CellRef::Num(y)) => x.total_cmp(&y),
        (CellRef::Text(x), CellRef::Text(y)) => x.cmp(y),
        (CellRef::Bool(x), CellRef::Bool(y)) => x.cmp(&y),
        (CellRef::Time(x, _), CellRef::Time(y, _)) => x.cmp(&y),
        (CellRef::Missing, CellRef::Missing) => Ordering::Equal,
        (CellRef::Missing, _) => Ordering::Greater,
        (_, CellRef::Missing) => Ordering::Less,
        _ => Ordering::Equal,
    }
}

/// The borrowed view of an owned cell.
pub fn view(c: &Cell) -> CellRef<'_> {
    match c {
        Cell::Missing => CellRef::Missing,
        Cell::Text(t) => CellRef::Text(t),
        Cell::Int(i) => CellRef::Int(*i),
        Cell::Num(n) => CellRef::Num(*n),
        Cell::Bool(b) => CellRef::Bool(*b),
        Cell::Time(ns, t) => CellRef::Time(*ns, t),
    }
}

fn keep(cell: CellRef<'_>, f: &Filter) -> bool {
    match (f.op, cell) {
        (Op::Missing, c) => matches!(c, CellRef::Missing),
        (_, CellRef::Missing) => false,
        (Op::Contains, CellRef::Text(t) | CellRef::Time(_, t)) => match &f.value {
            Cell::Text(needle) => t.contains(&**needle),
            _ => false,
        },
        (Op::Contains | Op::In, _) => false,
        (op, c) => {
            let o = cmp_ref(c, view(&f.value));
            match op {
                Op::Eq => o == Ordering::Equal,
                Op::Ne => o != Ordering::Equal,
                Op::Lt => o == Ordering::Less,
                Op::Le => o != Ordering::Greater,
                Op::Gt => o == Ordering::Greater,
                Op::Ge => o != Ordering::Less,
                Op::Contains | Op::Missing | Op::In => false,
            }
        }
    }
}

/// Row indices passing every filter (in file order), stably sorted (missing values last in either direction).
pub fn select(t: &Table, filters: &[Filter], sort: &[Sort]) -> Vec<u32> {
    // A key-set filter bounds the candidates to its own rows (ascending, so file order).
    let candidates: Box<dyn Iterator<Item = u32> + '_> =
        match filters.iter().find(|f| f.op == Op::In) {
            Some(f) => Box::new(f.rows.iter().copied()),
            None => Box::new(0..t.rows as u32),
        };
    let mut rows: Vec<u32> = candidates
        .filter(|&r| filters.iter().all(|f| f.passes(t, r)))
        .collect();
    if let [s] = sort {
        if let Some(sorted) = sort_by_number_key(&t.columns[s.column], &rows, s.descending) {
            return sorted;
        }
    }
    if !sort.is_empty() {
        rows.sort_by(|&a, &b| {
            for s in sort {
                let col = &t.columns[s.column];
                let (x, y) = (col.get(a as usize), col.get(b as usize));
                let o = match (x, y) {
                    (CellRef::Missing, CellRef::Missing) => Ordering::Equal,
                    (CellRef::Missing, _) => Ordering::Greater,
                    (_, CellRef::Missing) => Ordering::Less,
                    _ if s.descending => cmp_ref(y, x),
                    _ => cmp_ref(x, y),
                };
                if o != Ordering::Equal {
                    return o;
                }
            }
            Ordering::Equal
        });
    }
    rows
}

/// A stable sort of `rows` by one non-text column: its keys extracted once as ordered `u64`s,
/// ties by row, missing rows last in file order. `None` for a text column.
fn sort_by_number_key(col: &ColumnData, rows: &[u32], descending: bool) -> Option<Vec<u32>> {
    const SIGN: u64 = 1 << 63;
    let key: Box<dyn Fn(usize) -> u64 + '_> = match &col.values {
        Values::Int(v) => Box::new(move |r| v[r] as u64 ^ SIGN),
        Values::Time(v, _) => Box::new(move |r| v[r] as u64 ^ SIGN),
        Values::Num(v) => Box::new(move |r| {
            let b = v[r].to_bits();
            if b & SIGN != 0 {
                !b
            } else {
                b | SIGN
            }
        }),
        Values::Bool(v) => Box::new(move |r| u64::from(v[r])),
        Values::Text(_) => return None,
    };
    let mut keyed = Vec::with_capacity(rows.len());
    let mut missing = Vec::new();
    for &r in rows {
        if col.is_missing(r as usize) {
            missing.push(r);
        } else {
            let k = key(r as usize);
            keyed.push((if descending { !k } else { k }, r));
        }
    }
    radix_sort(&mut keyed);
    let mut out: Vec<u32> = keyed.into_iter().map(|(_, r)| r).collect();
    out.extend(missing);
    Some(out)
}

/// Sorts `(key, row)` pairs by key, ties in their given order: a stable radix sort by one byte
/// at a time from the lowest, skipping a byte every key shares (the rows come ascending, so
/// this is the order of `sort_unstable` on the pairs, in a few linear passes).
fn radix_sort(v: &mut Vec<(u64, u32)>) {
    let mut counts = [[0usize; 256]; 8];
    for &(k, _) in v.iter() {
        for (d, c) in counts.iter_mut().enumerate() {
            c[(k >> (8 * d)) as usize & 0xFF] += 1;
        }
    }
    let mut spare = vec![(0u64, 0u32); v.len()];
    for (d, c) in counts.iter().enumerate() {
        if c.contains(&v.len()) {
            continue;
        }
        let mut at = [0usize; 256];
        let mut sum = 0;
        for (a, &n) in at.iter_mut().zip(c) {
            *a = sum;
            sum += n;
        }
        for &(k, r) in v.iter() {
            let b = (k >> (8 * d)) as usize & 0xFF;
            spare[at[b]] = (k, r);
            at[b] += 1;
        }
        std::mem::swap(v, &mut spare);
    }
}

/// A cell as JSON: integers beyond +/-2^53 as strings (CONVENTIONS, numbers).
pub fn cell_json(c: &Cell) -> serde_json::Value {
    cell_ref_json(view(c))
}

/// A cell read in place as JSON (as `cell_json`).
pub fn cell_ref_json(c: CellRef<'_>) -> serde_json::Value {
    use serde_json::Value;
    const SAFE: i64 = 1 << 53;
    match c {
        CellRef::Missing => Value::Null,
        CellRef::Text(t) | CellRef::Time(_, t) => Value::String(t.to_string()),
        CellRef::Int(i) if (-SAFE..=SAFE).contains(&i) => Value::from(i),
        CellRef::Int(i) => Value::String(i.to_string()),
        CellRef::Num(n) => serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number),
        CellRef::Bool(b) => Value::Bool(b),
    }
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        /// The radix sort orders pairs as `sort_unstable` does when rows come ascending.
        #[test]
        fn radix_sort_is_the_pair_order(keys in proptest::collection::vec(proptest::sample::select(vec![0u64, 1, 255, 256, 1 << 40, u64::MAX, 0x8000_0000_0000_0000, 12345]), 0..200), noise in proptest::collection::vec(proptest::num::u64::ANY, 0..50)) {
            let mut v: Vec<(u64, u32)> = keys.iter().chain(&noise).enumerate().map(|(r, &k)| (k, r as u32)).collect();
            let mut want = v.clone();
            want.sort_unstable();
            super::radix_sort(&mut v);
            proptest::prop_assert_eq!(v, want);
        }
    }
}
