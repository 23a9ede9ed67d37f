//! Typing one CSV record into a table's columns, and the problems a read lists: the leaf the one-thread and parallel readers share.

use super::column::ColumnData;
use super::schema::{
    datetime_ns, is_date, parse_integer, parse_number, type_text, Column, ColumnType, Schema,
};

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

pub(super) fn add_problem(
    problems: &mut Vec<Problem>,
    row: u64,
    column: Option<&str>,
    reason: String,
) {
    if problems.len() < MAX_PROBLEMS {
        problems.push(Problem {
            row,
            column: column.map(str::to_string),
            reason,
        });
    }
}

/// Types one record's fields into the columns, listing each cell that does not fit (stored as
/// missing); a record with the wrong number of fields is one problem and all missing.
pub(super) fn push_record(
    columns: &mut [ColumnData],
    schema: &Schema,
    fields: &[&str],
    (pos, header_len): (&[usize], usize),
    (problems, row): (&mut Vec<Problem>, u64),
) {
    if fields.len() != header_len {
        add_problem(
            problems,
            row,
            None,
            format!("{} fields where the header has {header_len}", fields.len()),
        );
        for col in columns.iter_mut() {
            col.push_missing();
        }
        return;
    }
    for ((c, col), &p) in schema.columns.iter().zip(columns.iter_mut()).zip(pos) {
        let Some(text) = fields.get(p) else {
            col.push_missing();
            continue;
        };
        if let Err(reason) = push_cell(c, col, text) {
            add_problem(problems, row, Some(&c.name), reason);
            col.push_missing();
        }
    }
}

/// Whether `text` is one of the column's declared missing texts.
pub(super) fn is_missing(c: &Column, text: &str) -> bool {
    c.missing
        .as_ref()
        .is_some_and(|m| m.iter().any(|t| t == text))
}

/// Types one CSV cell into its column, or says why it does not fit (as `type_text` says).
pub(super) fn push_cell(c: &Column, col: &mut ColumnData, text: &str) -> Result<(), String> {
    if is_missing(c, text) {
        col.push_missing();
        return Ok(());
    }
    match c.ty {
        ColumnType::String => col.push_text(text),
        ColumnType::Integer => match parse_integer(text) {
            Some(v) => col.push_int(v),
            None => return type_text(c, text).map(|cell| col.push_cell(&cell)),
        },
        ColumnType::Number => match parse_number(text) {
            Some(v) => col.push_num(v),
            None => return type_text(c, text).map(|cell| col.push_cell(&cell)),
        },
        ColumnType::Boolean => match text {
            "true" => col.push_bool(true),
            "false" => col.push_bool(false),
            _ => return type_text(c, text).map(|cell| col.push_cell(&cell)),
        },
        ColumnType::Date if is_date(text) => col.push_text(text),
        ColumnType::DateTime => match datetime_ns(text) {
            Some(ns) => col.push_time(ns, text),
            None => return type_text(c, text).map(|cell| col.push_cell(&cell)),
        },
        ColumnType::Date => return type_text(c, text).map(|cell| col.push_cell(&cell)),
    }
    Ok(())
}
