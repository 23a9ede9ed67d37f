//! Reading a large CSV body on several cores: chunks split at record starts, each typed on its own thread, then joined.
//!
//! A chunk boundary is a line break with an even number of quotes before it (outside any quoted
//! field in an RFC 4180 text). The split is only a guess that the join checks: each chunk must end
//! exactly where the next begins, so every chunk read the records one reader would have read.
//! Anything unusual (a problem in any cell, a CSV error, the row limit, a misjudged boundary)
//! gives up, and the caller reads the body on one thread, which reports exactly what it finds.

use super::column::ColumnData;
use super::record::{estimate_rows, push_record};
use super::schema::Schema;

/// Below this many body bytes one thread reads the table.
const MIN_PARALLEL_BYTES: usize = 1 << 20;

/// The typed columns of the records in `text[from..]`, or `None` to read on one thread.
pub(super) fn read_body(
    schema: &Schema,
    text: &str,
    from: usize,
    pos: &[usize],
    header_len: usize,
    max_rows: u64,
) -> Option<Vec<ColumnData>> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let body = text.len().saturating_sub(from);
    let threads = threads.min(body / MIN_PARALLEL_BYTES).min(16);
    if threads < 2 {
        return None;
    }
    let starts = boundaries(text.as_bytes(), from, threads);
    if starts.len() < 2 {
        return None;
    }
    let chunks: Vec<Option<Vec<ColumnData>>> = std::thread::scope(|s| {
        let handles: Vec<_> = starts
            .iter()
            .enumerate()
            .map(|(k, &start)| {
                let until = starts.get(k + 1).copied().unwrap_or(text.len());
                s.spawn(move || chunk(schema, text, (start, until), pos, header_len, max_rows))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().ok().flatten())
            .collect()
    });
    let mut chunks: Vec<Vec<ColumnData>> = chunks.into_iter().collect::<Option<_>>()?;
    if chunks.is_empty() {
        return None;
    }
    let rest = chunks.split_off(1);
    let mut joined = chunks.pop()?;
    for (c, col) in joined.iter_mut().enumerate() {
        col.reserve_for(rest.iter().filter_map(|o| o.get(c)));
    }
    for other in rest {
        for (a, b) in joined.iter_mut().zip(other) {
            a.append(b);
        }
    }
    let rows = joined.first().map_or(0, ColumnData::len);
    (rows as u64 <= max_rows).then_some(joined)
}

/// One chunk's columns, if every record in it fits and it ends exactly at `until`.
fn chunk(
    schema: &Schema,
    text: &str,
    (start, until): (usize, usize),
    pos: &[usize],
    header_len: usize,
    max_rows: u64,
) -> Option<Vec<ColumnData>> {
    let rows = estimate_rows(&text.as_bytes()[start..until]);
    let mut columns: Vec<ColumnData> = schema
        .columns
        .iter()
        .map(|c| ColumnData::new(c.ty, rows))
        .collect();
    for col in &mut columns {
        col.reserve_text((until - start) / schema.columns.len().max(1));
    }
    let mut problems = Vec::new();
    let mut n = 0u64;
    let (end, _) = super::csv::records(text, start, until, 1, |fields| {
        n += 1;
        push_record(
            &mut columns,
            schema,
            fields,
            (pos, header_len),
            (&mut problems, n),
        );
        problems.is_empty() && n <= max_rows
    })
    .ok()?;
    (problems.is_empty() && n <= max_rows && end == until).then_some(columns)
}

/// Record starts splitting `b[from..]` into about `n` chunks (the first is `from`).
fn boundaries(b: &[u8], from: usize, n: usize) -> Vec<usize> {
    let mut starts = vec![from];
    let mut at = from;
    let mut quotes = 0usize;
    let step = (b.len() - from) / n;
    for k in 1..n {
        let target = (from + k * step).max(at);
        quotes += count_quotes(&b[at..target]);
        let mut p = target;
        loop {
            let Some(nl) = b[p..].iter().position(|&c| c == b'\n').map(|i| i + p) else {
                return starts;
            };
            quotes += count_quotes(&b[p..nl]);
            p = nl + 1;
            if quotes % 2 == 0 {
                break;
            }
        }
        if p >= b.len() {
            return starts;
        }
        starts.push(p);
        at = p;
    }
    starts
}

fn count_quotes(b: &[u8]) -> usize {
    b.iter().filter(|&&c| c == b'"').count()
}
