//! Filtering and stable sorting of a typed table's rows (missing values last), by row index.

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
    match (a, b) {
        (Cell::Int(x), Cell::Int(y)) => x.cmp(y),
        (Cell::Num(x), Cell::Num(y)) => x.total_cmp(y),
        (Cell::Text(x), Cell::Text(y)) => x.cmp(y),
        (Cell::Bool(x), Cell::Bool(y)) => x.cmp(y),
        (Cell::Time(x, _), Cell::Time(y, _)) => x.cmp(y),
        (Cell::Missing, Cell::Missing) => Ordering::Equal,
        (Cell::Missing, _) => Ordering::Greater,
        (_, Cell::Missing) => Ordering::Less,
        _ => Ordering::Equal,
    }
}

fn keep(cell: &Cell, f: &Filter) -> bool {
    match (f.op, cell) {
        (Op::Missing, c) => matches!(c, Cell::Missing),
        (_, Cell::Missing) => false,
        (Op::Contains, Cell::Text(t) | Cell::Time(_, t)) => match &f.value {
            Cell::Text(needle) => t.contains(&**needle),
            _ => false,
        },
        (Op::Contains, _) => false,
        (op, c) => {
            let o = cmp(c, &f.value);
            match op {
                Op::Eq => o == Ordering::Equal,
                Op::Ne => o != Ordering::Equal,
                Op::Lt => o == Ordering::Less,
                Op::Le => o != Ordering::Greater,
                Op::Gt => o == Ordering::Greater,
                Op::Ge => o != Ordering::Less,
                Op::Contains | Op::Missing => false,
            }
        }
    }
}

/// Row indices passing every filter, stably sorted (missing values last in either direction).
pub fn select(t: &Table, filters: &[Filter], sort: &[Sort]) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..t.rows as u32)
        .filter(|&r| {
            filters
                .iter()
                .all(|f| keep(&t.columns[f.column][r as usize], f))
        })
        .collect();
    if !sort.is_empty() {
        rows.sort_by(|&a, &b| {
            for s in sort {
                let col = &t.columns[s.column];
                let (x, y) = (&col[a as usize], &col[b as usize]);
                let o = match (x, y) {
                    (Cell::Missing, Cell::Missing) => Ordering::Equal,
                    (Cell::Missing, _) => Ordering::Greater,
                    (_, Cell::Missing) => Ordering::Less,
                    _ if s.descending => cmp(y, x),
                    _ => cmp(x, y),
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

/// A cell as JSON: integers beyond +/-2^53 as strings (CONVENTIONS, numbers).
pub fn cell_json(c: &Cell) -> serde_json::Value {
    use serde_json::Value;
    const SAFE: i64 = 1 << 53;
    match c {
        Cell::Missing => Value::Null,
        Cell::Text(t) | Cell::Time(_, t) => Value::String(t.to_string()),
        Cell::Int(i) if (-SAFE..=SAFE).contains(i) => Value::from(*i),
        Cell::Int(i) => Value::String(i.to_string()),
        Cell::Num(n) => serde_json::Number::from_f64(*n).map_or(Value::Null, Value::Number),
        Cell::Bool(b) => Value::Bool(*b),
    }
}
