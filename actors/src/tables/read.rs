//! Reading a table's bytes by its schema: every cell typed, keys checked, the first problems reported by row and column.

use super::csv;
use super::schema::{type_text, Cell, ColumnType, Schema, TableFormat};
use super::TablesError;
use crate::error::ActorError;
use std::collections::HashMap;

/// How many problems a refusal lists.
pub const MAX_PROBLEMS: usize = 20;

/// One cell (or row) that does not fit the declaration. `row` counts data rows from 1 (0 is the header).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Problem {
    pub row: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<String>,
    pub reason: String,
}

/// A fully validated, typed table, column-major.
#[derive(Debug)]
pub struct Table {
    pub schema: Schema,
    pub rows: usize,
    pub columns: Vec<Vec<Cell>>,
    /// Row of each key, for keyed tables.
    pub keys: HashMap<Box<str>, usize>,
}

impl Table {
    pub fn key(&self, row: usize) -> Option<&str> {
        let (k, _) = self.schema.key.as_ref()?;
        match &self.columns[*k][row] {
            Cell::Text(t) => Some(t),
            _ => None,
        }
    }
}

struct Builder<'a> {
    schema: &'a Schema,
    columns: Vec<Vec<Cell>>,
    problems: Vec<Problem>,
    rows: usize,
    max_rows: u64,
}

impl Builder<'_> {
    fn problem(&mut self, row: u64, column: Option<&str>, reason: String) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(Problem {
                row,
                column: column.map(str::to_string),
                reason,
            });
        }
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
        let mut keys = HashMap::new();
        if let Some((k, _)) = &self.schema.key {
            let name = self.schema.columns[*k].name.clone();
            for row in 0..self.rows {
                let reason = match &self.columns[*k][row] {
                    Cell::Text(t) if t.is_empty() => Some("the key is empty".to_string()),
                    Cell::Text(t) => keys
                        .insert(t.clone(), row)
                        .map(|first| format!("duplicate key {t:?} (first at row {})", first + 1)),
                    _ => Some("the key is missing".to_string()),
                };
                if let Some(r) = reason {
                    self.problem(row as u64 + 1, Some(&name), r);
                }
            }
        }
        if !self.problems.is_empty() {
            return Err(TablesError::Problems(self.problems));
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
    let mut b = Builder {
        schema,
        columns: vec![Vec::new(); schema.columns.len()],
        problems: Vec::new(),
        rows: 0,
        max_rows,
    };
    match schema.format {
        TableFormat::Csv => read_csv(&mut b, bytes)?,
        TableFormat::JsonRows => read_json(&mut b, bytes)?,
    }
    b.finish()
}

fn read_csv(b: &mut Builder<'_>, bytes: &[u8]) -> Result<(), TablesError> {
    let text = csv::text(bytes).map_err(|e| {
        TablesError::Problems(vec![Problem {
            row: 0,
            column: None,
            reason: e.to_string(),
        }])
    })?;
    let mut positions: Option<Vec<usize>> = None;
    let mut header_len = 0;
    let mut failure: Option<TablesError> = None;
    let schema = b.schema;
    let parsed = csv::for_each_record(text, |fields| {
        let Some(pos) = &positions else {
            header_len = fields.len();
            let mut pos = Vec::with_capacity(schema.columns.len());
            for c in &schema.columns {
                match fields.iter().position(|f| f == c.name.as_str()) {
                    Some(p) => pos.push(p),
                    None => {
                        b.problem(0, Some(&c.name), "the column is not in the header".into());
                        pos.push(usize::MAX);
                    }
                }
            }
            positions = Some(pos);
            return true;
        };
        let row = match b.next_row() {
            Ok(r) => r,
            Err(e) => {
                failure = Some(e);
                return false;
            }
        };
        if fields.len() != header_len {
            b.problem(
                row,
                None,
                format!("{} fields where the header has {header_len}", fields.len()),
            );
            for col in &mut b.columns {
                col.push(Cell::Missing);
            }
            return true;
        }
        for (i, c) in schema.columns.iter().enumerate() {
            let cell = match fields.get(pos[i]) {
                None => Cell::Missing,
                Some(text) => match type_text(c, text) {
                    Ok(cell) => cell,
                    Err(reason) => {
                        b.problem(row, Some(&c.name), reason);
                        Cell::Missing
                    }
                },
            };
            b.columns[i].push(cell);
        }
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
            b.columns[i].push(cell);
        }
    }
    Ok(())
}
