//! Reading a table's bytes by its schema: every cell typed, keys checked, the first problems reported by row and column.

use super::column::{CellRef, ColumnData};
use super::csv;
use super::keys::{KeyHasher, KeyIndex};
use super::record::{add_problem, push_record};
pub use super::record::{Problem, MAX_PROBLEMS};
use super::scan::estimate_rows;
use super::schema::{type_text, Cell, ColumnType, Schema, TableFormat};
use super::TablesError;
use crate::error::ActorError;
use crate::files::stream::Source;

/// A fully validated, typed table, column-major: typed value vectors, texts in one arena per column.
#[derive(Debug)]
pub struct Table {
    pub schema: Schema,
    pub rows: usize,
    pub columns: Vec<ColumnData>,
    /// Row of each key, for keyed tables.
    pub keys: KeyIndex,
}

impl Table {
    pub fn key(&self, row: usize) -> Option<&str> {
        let (k, _) = self.schema.key.as_ref()?;
        match self.columns[*k].get(row) {
            CellRef::Text(t) => Some(t),
            _ => None,
        }
    }

    /// The row of entity key `key`.
    pub fn key_row(&self, key: &str) -> Option<usize> {
        let (k, _) = self.schema.key.as_ref()?;
        let col = &self.columns[*k];
        self.keys.get(key, |r| match col.get(r) {
            CellRef::Text(t) => t,
            _ => "",
        })
    }

    /// Cell `row` of column `col`.
    pub fn cell(&self, col: usize, row: usize) -> CellRef<'_> {
        self.columns[col].get(row)
    }

    /// The value of a numeric cell.
    pub fn number(&self, col: usize, row: usize) -> Option<f64> {
        self.cell(col, row).number()
    }

    /// Heap bytes the parsed table holds.
    pub fn heap_bytes(&self) -> usize {
        self.columns
            .iter()
            .map(ColumnData::heap_bytes)
            .sum::<usize>()
            + self.keys.heap_bytes()
    }
}

struct Builder<'a> {
    schema: &'a Schema,
    columns: Vec<ColumnData>,
    problems: Vec<Problem>,
    rows: usize,
    max_rows: u64,
    /// Hashes the key texts; `key_hashes` holds each row's when the fast read computed them.
    hasher: KeyHasher,
    key_hashes: Vec<u64>,
}

impl<'a> Builder<'a> {
    fn new(schema: &'a Schema, max_rows: u64, rows: usize) -> Builder<'a> {
        Builder {
            schema,
            columns: schema
                .columns
                .iter()
                .map(|c| ColumnData::new(c.ty, rows))
                .collect(),
            problems: Vec::new(),
            rows: 0,
            max_rows,
            hasher: KeyHasher::default(),
            key_hashes: Vec::new(),
        }
    }

    fn problem(&mut self, row: u64, column: Option<&str>, reason: String) {
        add_problem(&mut self.problems, row, column, reason);
    }

    fn next_row(&mut self) -> Result<u64, TablesError> {
        self.rows += 1;
        if self.rows as u64 > self.max_rows {
            return Err(ActorError::Limit {
                limit: "resources.maxRows".into(),
                value: self.max_rows,
            }
            .into());
        }
        Ok(self.rows as u64)
    }

    fn finish(mut self) -> Result<Table, TablesError> {
        let mut keys = KeyIndex::default();
        if let Some((k, _)) = &self.schema.key {
            let name = self.schema.columns[*k].name.clone();
            keys = KeyIndex::with_capacity(self.rows, self.hasher.clone());
            let col = &self.columns[*k];
            let hashed = self.key_hashes.len() == self.rows;
            let text = |r: usize| match col.get(r) {
                CellRef::Text(t) => t,
                _ => "",
            };
            let mut found = Vec::new();
            for row in 0..self.rows {
                let reason = match col.get(row) {
                    CellRef::Text("") => Some("the key is empty".to_string()),
                    CellRef::Text(t) => {
                        let hash = match hashed {
                            true => self.key_hashes[row],
                            false => self.hasher.hash(t),
                        };
                        keys.insert(t, hash, row, text).map(|first| {
                            format!("duplicate key {t:?} (first at row {})", first + 1)
                        })
                    }
                    _ => Some("the key is missing".to_string()),
                };
                if let Some(r) = reason {
                    found.push((row as u64 + 1, r));
                    if found.len() >= MAX_PROBLEMS {
                        break;
                    }
                }
            }
            for (row, r) in found {
                self.problem(row, Some(&name), r);
            }
        }
        if !self.problems.is_empty() {
            return Err(TablesError::Problems(self.problems));
        }
        for c in &mut self.columns {
            c.shrink();
        }
        Ok(Table {
            schema: self.schema.clone(),
            rows: self.rows,
            columns: self.columns,
            keys,
        })
    }
}

/// Reads and validates the whole table.
pub fn read(schema: &Schema, bytes: &[u8], max_rows: u64) -> Result<Table, TablesError> {
    read_whole(schema, bytes, max_rows, true)
}

/// Reads and validates the whole table by the exact reader only (one thread): for bytes the
/// fast read of [`read_from`] already gave up on.
pub fn read_exact(schema: &Schema, bytes: &[u8], max_rows: u64) -> Result<Table, TablesError> {
    read_whole(schema, bytes, max_rows, false)
}

/// Reads and validates a CSV table by the fast read, its bytes taken from `src` a piece at a
/// time (never all held at once); `None` when the fast read gives up or the table is not CSV,
/// for the caller to read the bytes whole with [`read_exact`].
pub fn read_from(
    schema: &Schema,
    src: &mut dyn Source,
    max_rows: u64,
) -> Option<Result<Table, TablesError>> {
    if schema.format != TableFormat::Csv {
        return None;
    }
    let start = std::time::Instant::now();
    let mut b = Builder::new(schema, max_rows, 0);
    let fast = super::parallel::read_from(schema, src, max_rows, &b.hasher)?;
    (b.columns, b.rows, b.key_hashes) = (fast.columns, fast.rows, fast.key_hashes);
    Some(finish(b, start))
}

fn read_whole(
    schema: &Schema,
    bytes: &[u8],
    max_rows: u64,
    fast: bool,
) -> Result<Table, TablesError> {
    let start = std::time::Instant::now();
    let b = match schema.format {
        TableFormat::Csv => read_csv(schema, bytes, max_rows, fast)?,
        TableFormat::JsonRows => {
            let mut b = Builder::new(schema, max_rows, 0);
            read_json(&mut b, bytes)?;
            b
        }
    };
    finish(b, start)
}

/// The validated table of a builder whose cells were read since `start`.
fn finish(b: Builder<'_>, start: std::time::Instant) -> Result<Table, TablesError> {
    let parsed = start.elapsed();
    let table = b.finish()?;
    tracing::debug!(
        rows = table.rows,
        parse_us = parsed.as_micros() as u64,
        keys_us = start.elapsed().saturating_sub(parsed).as_micros() as u64,
        "table read"
    );
    Ok(table)
}

fn read_csv<'a>(
    schema: &'a Schema,
    bytes: &[u8],
    max_rows: u64,
    fast: bool,
) -> Result<Builder<'a>, TablesError> {
    let mut b = Builder::new(schema, max_rows, 0);
    if let Some(fast) = fast
        .then(|| super::parallel::read(schema, bytes, max_rows, &b.hasher))
        .flatten()
    {
        b.columns = fast.columns;
        b.rows = fast.rows;
        b.key_hashes = fast.key_hashes;
        return Ok(b);
    }
    // The exact reader: one thread, every problem with its row, line and message.
    let text = csv::text(bytes).map_err(|e| {
        TablesError::Problems(vec![Problem {
            row: 0,
            column: None,
            reason: e.to_string(),
        }])
    })?;
    b.columns = schema
        .columns
        .iter()
        .map(|c| ColumnData::new(c.ty, estimate_rows(text.as_bytes(), text.len())))
        .collect();
    read_body(&mut b, text)?;
    Ok(b)
}

/// Reads the header and the records of `text` into `b`, with every problem, the row limit and
/// CSV errors exactly as one reader in file order sees them.
fn read_body(b: &mut Builder<'_>, text: &str) -> Result<(), TablesError> {
    let mut positions: Option<(Vec<usize>, usize)> = None;
    let mut failure: Option<TablesError> = None;
    let schema = b.schema;
    let parsed = csv::records(text, 0, text.len(), 1, |fields| {
        let Some((pos, header_len)) = &positions else {
            let mut pos = Vec::with_capacity(schema.columns.len());
            for c in &schema.columns {
                match fields.iter().position(|f| *f == c.name.as_str()) {
                    Some(p) => pos.push(p),
                    None => {
                        b.problem(0, Some(&c.name), "the column is not in the header".into());
                        pos.push(usize::MAX);
                    }
                }
            }
            positions = Some((pos, fields.len()));
            return true;
        };
        let row = match b.next_row() {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                return false;
            }
        };
        push_record(
            &mut b.columns,
            schema,
            fields,
            (pos, *header_len),
            (&mut b.problems, row),
        );
        true
    });
    if let Some(e) = failure {
        return Err(e);
    }
    parsed.map_err(|e| {
        let mut p = std::mem::take(&mut b.problems);
        p.push(Problem {
            row: b.rows as u64 + 1,
            column: None,
            reason: e.to_string(),
        });
        TablesError::Problems(p)
    })?;
    if positions.is_none() {
        b.problem(0, None, "the file has no header row".into());
    }
    Ok(())
}

fn read_json(b: &mut Builder<'_>, bytes: &[u8]) -> Result<(), TablesError> {
    use serde_json::Value;
    let rows: Vec<serde_json::Map<String, Value>> = serde_json::from_slice(bytes).map_err(|e| {
        TablesError::Problems(vec![Problem {
            row: 0,
            column: None,
            reason: format!("not a JSON array of objects: {e}"),
        }])
    })?;
    let schema = b.schema;
    for obj in rows {
        let row = b.next_row()?;
        for (i, c) in schema.columns.iter().enumerate() {
            let cell = match obj.get(&c.name) {
                None | Some(Value::Null) if c.missing.is_some() => Ok(Cell::Missing),
                None | Some(Value::Null) => Err(
                    "the value is missing and the column declares no missing values".to_string(),
                ),
                Some(Value::String(s)) => match c.ty {
                    // Integers beyond +/-2^53 travel as strings.
                    ColumnType::Integer
                    | ColumnType::String
                    | ColumnType::Date
                    | ColumnType::DateTime => type_text(c, s),
                    _ if c.missing.as_ref().is_some_and(|m| m.contains(s)) => Ok(Cell::Missing),
                    _ => Err(format!("{s:?} is a string, not a {:?} value", c.ty)),
                },
                Some(Value::Number(n)) => match c.ty {
                    ColumnType::Integer => n
                        .as_i64()
                        .map(Cell::Int)
                        .ok_or_else(|| format!("{n} is not an integer")),
                    ColumnType::Number => n
                        .as_f64()
                        .filter(|v| v.is_finite())
                        .map(Cell::Num)
                        .ok_or_else(|| format!("{n} is not a finite number")),
                    _ => Err(format!("{n} is a number, not a {:?} value", c.ty)),
                },
                Some(Value::Bool(v)) if c.ty == ColumnType::Boolean => Ok(Cell::Bool(*v)),
                Some(other) => Err(format!("{other} does not fit a {:?} column", c.ty)),
            };
            let cell = cell.unwrap_or_else(|reason| {
                b.problem(row, Some(&c.name), reason);
                Cell::Missing
            });
            b.columns[i].push_cell(&cell);
        }
    }
    Ok(())
}
