//! The fast path of a CSV read: one chunk of records typed straight into columns in one pass over its bytes, giving up on anything the exact reader must report.
//!
//! A plain integer or decimal is typed while its digits are scanned, a text is copied into its
//! column's arena where its end is found, and quoted fields and every other type go through the
//! exact reader's own `push_cell`. Nothing is guessed: a cell is typed here only when the exact
//! reader would type it the same way, and anything else (a cell that does not fit, a record with
//! the wrong number of fields, a CSV error, text that is not UTF-8, the row limit) answers `None`
//! so that the caller reads the table again on one thread and reports exactly what it finds.

use super::column::ColumnData;
use super::csv::field_end;
use super::keys::KeyHasher;
use super::record::{is_missing, push_cell};
use super::schema::{parse_integer, parse_number, Column, ColumnType, Schema};

/// How one field of the header is read.
#[derive(Debug, Clone, Copy)]
enum Field {
    /// Not a declared column: only checked to be well-formed.
    Skip,
    /// A `string` column; `missing` when it declares missing texts, `key` for the key column.
    Text {
        col: usize,
        missing: bool,
        key: bool,
    },
    /// An `integer` column none of whose missing texts is an integer.
    Int { col: usize },
    /// A `number` column none of whose missing texts is a number.
    Num { col: usize },
    /// Any other column: every cell through `push_cell`.
    Cell { col: usize },
}

/// What a read of one table's body needs to know, shared by its chunks.
#[derive(Debug)]
pub(super) struct Plan<'a> {
    schema: &'a Schema,
    /// By header field.
    fields: Vec<Field>,
    hasher: &'a KeyHasher,
}

/// The typed columns of one chunk, and the hash of each row's key text (keyed tables).
#[derive(Debug)]
pub(super) struct Chunk {
    pub columns: Vec<ColumnData>,
    pub key_hashes: Vec<u64>,
    pub rows: usize,
}

impl<'a> Plan<'a> {
    /// The plan of a header of `header_len` fields where column `c` is field `pos[c]` (every
    /// declared column present).
    pub(super) fn new(
        schema: &'a Schema,
        pos: &[usize],
        header_len: usize,
        hasher: &'a KeyHasher,
    ) -> Option<Plan<'a>> {
        let mut fields = vec![Field::Skip; header_len];
        let key = schema.key.as_ref().map(|(k, _)| *k);
        for (col, (c, &p)) in schema.columns.iter().zip(pos).enumerate() {
            *fields.get_mut(p)? = match c.ty {
                ColumnType::String => Field::Text {
                    col,
                    missing: c.missing.as_ref().is_some_and(|m| !m.is_empty()),
                    key: key == Some(col),
                },
                ColumnType::Integer if !missing_is_a(c, |t| parse_integer(t).is_some()) => {
                    Field::Int { col }
                }
                ColumnType::Number if !missing_is_a(c, |t| parse_number(t).is_some()) => {
                    Field::Num { col }
                }
                _ => Field::Cell { col },
            };
        }
        Some(Plan {
            schema,
            fields,
            hasher,
        })
    }

    /// Types the records of `bytes` (whole records: a chunk ends after a line break or at the
    /// end of the file) into columns with room for about `room` bytes of records. `None` when
    /// anything is unusual (see the module's note) or the chunk holds more than `max_rows`.
    pub(super) fn chunk(&self, bytes: &[u8], room: usize, max_rows: u64) -> Option<Chunk> {
        let text = std::str::from_utf8(bytes).ok()?;
        let rows = estimate_rows(bytes, room);
        let mut columns: Vec<ColumnData> = (self.schema.columns.iter())
            .map(|c| ColumnData::new(c.ty, rows))
            .collect();
        for col in &mut columns {
            col.reserve_text(room / self.schema.columns.len().max(1));
        }
        let mut out = Chunk {
            columns,
            key_hashes: Vec::with_capacity(if self.schema.key.is_some() { rows } else { 0 }),
            rows: 0,
        };
        let mut scratch = String::new();
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            out.rows += 1;
            if out.rows as u64 > max_rows {
                return None;
            }
            let mut f = 0;
            loop {
                let field = *self.fields.get(f)?;
                i = if b.get(i) == Some(&b'"') {
                    let (t, end) = quoted(text, i, &mut scratch)?;
                    self.cell(&mut out, field, t)?;
                    end
                } else {
                    self.plain(&mut out, field, text, i)?
                };
                // `b[i]` ends the field: a comma, a line break, or the end.
                if b.get(i) == Some(&b',') {
                    i += 1;
                    f += 1;
                    continue;
                }
                break;
            }
            if f + 1 != self.fields.len() {
                return None;
            }
            // End of record: CRLF, LF, lone CR, or end of text.
            if b.get(i) == Some(&b'\r') {
                i += 1;
            }
            if b.get(i) == Some(&b'\n') {
                i += 1;
            }
        }
        Some(out)
    }

    /// Types the unquoted field at `i`; answers where it ends.
    fn plain(&self, out: &mut Chunk, field: Field, text: &str, i: usize) -> Option<usize> {
        let b = text.as_bytes();
        match field {
            Field::Int { col } => {
                if let Some((v, end)) = plain_integer(b, i) {
                    out.columns[col].push_int(v);
                    return Some(end);
                }
            }
            Field::Num { col } => {
                if let Some((v, end)) = plain_decimal(b, i) {
                    out.columns[col].push_num(v);
                    return Some(end);
                }
            }
            _ => {}
        }
        let end = field_end(b, i);
        if b.get(end) == Some(&b'"') {
            return None;
        }
        self.cell(out, field, text.get(i..end)?)?;
        Some(end)
    }

    /// Types the text of one field as the exact reader does; `None` when it does not fit.
    fn cell(&self, out: &mut Chunk, field: Field, t: &str) -> Option<()> {
        match field {
            Field::Skip => {}
            Field::Text { col, missing, key } => {
                let column = &mut out.columns[col];
                if missing && is_missing(&self.schema.columns[col], t) {
                    column.push_missing();
                } else {
                    column.push_text(t);
                }
                if key {
                    out.key_hashes.push(self.hasher.hash(t));
                }
            }
            Field::Int { col } | Field::Num { col } | Field::Cell { col } => {
                push_cell(&self.schema.columns[col], &mut out.columns[col], t).ok()?;
            }
        }
        Some(())
    }
}

/// Whether any missing text of `c` is also a value (`is_value`): then its values cannot be
/// typed without the missing check first.
fn missing_is_a(c: &Column, is_value: impl Fn(&str) -> bool) -> bool {
    c.missing
        .as_ref()
        .is_some_and(|m| m.iter().any(|t| is_value(t)))
}

/// The field ends at `b[i]`: a comma, a line break or the end.
fn ends_field(b: &[u8], i: usize) -> bool {
    matches!(b.get(i), None | Some(b',' | b'\n' | b'\r'))
}

/// An unquoted integer field at `i` of at most 18 digits (so it fits without a check), as
/// `parse_integer` reads it, and where it ends; `None` for anything else.
fn plain_integer(b: &[u8], mut i: usize) -> Option<(i64, usize)> {
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let start = i;
    let mut v: i64 = 0;
    while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
        v = v.wrapping_mul(10).wrapping_add(i64::from(d));
        i += 1;
    }
    let digits = i - start;
    if digits == 0 || digits > 18 || (digits > 1 && b[start] == b'0') || !ends_field(b, i) {
        return None;
    }
    Some((if negative { -v } else { v }, i))
}

/// An unquoted plain decimal field at `i` (`[+-]digits[.digits]`) that `parse_number` types by
/// its exact division (at most 19 digits forming at most 2^53, at most 22 after the point), the
/// same value, and where it ends; `None` for anything else.
fn plain_decimal(b: &[u8], mut i: usize) -> Option<(f64, usize)> {
    const EXACT: u64 = 1 << 53;
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let negative = b.get(i) == Some(&b'-');
    if matches!(b.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let start = i;
    let mut m: u64 = 0;
    while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
        m = m.wrapping_mul(10).wrapping_add(u64::from(d));
        i += 1;
    }
    let mut digits = i - start;
    let mut frac = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let f = i;
        while let Some(d) = b.get(i).map(|c| c.wrapping_sub(b'0')).filter(|d| *d <= 9) {
            m = m.wrapping_mul(10).wrapping_add(u64::from(d));
            i += 1;
        }
        frac = i - f;
        digits += frac;
    }
    if digits == 0 || digits > 19 || m > EXACT || !ends_field(b, i) {
        return None;
    }
    let v = m as f64 / POW10.get(frac)?;
    Some((if negative { -v } else { v }, i))
}

/// The quoted field at `i`, unquoted (borrowed from `text`, or built in `scratch` when it has
/// doubled quotes), and the index after its closing quote. `None` when it is never closed or
/// text follows the closing quote.
fn quoted<'t>(text: &'t str, i: usize, scratch: &'t mut String) -> Option<(&'t str, usize)> {
    let b = text.as_bytes();
    let mut i = i + 1;
    let mut seg = i;
    let mut doubled = false;
    scratch.clear();
    loop {
        let q = i + memchr::memchr(b'"', b.get(i..)?)?;
        if b.get(q + 1) == Some(&b'"') {
            scratch.push_str(text.get(seg..=q)?);
            doubled = true;
            i = q + 2;
            seg = i;
            continue;
        }
        if !ends_field(b, q + 1) {
            return None;
        }
        if doubled {
            scratch.push_str(text.get(seg..q)?);
            return Some((scratch.as_str(), q + 1));
        }
        return Some((text.get(seg..q)?, q + 1));
    }
}

/// About how many records `room` bytes hold, judged by the line breaks in the first 64 KiB of
/// `bytes` (columns are sized by it; memory never touched is never paged in).
pub(super) fn estimate_rows(bytes: &[u8], room: usize) -> usize {
    let head = &bytes[..bytes.len().min(1 << 16)];
    let lines = memchr::memchr_iter(b'\n', head).count().max(1);
    lines.saturating_mul(room) / head.len().max(1) + 1
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
