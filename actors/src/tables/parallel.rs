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
                // The first chunk's columns become the table's: they get room for the whole
                // body, so joining the others copies only theirs (untouched room is never paged in).
                let room = if k == 0 {
                    (start, text.len())
                } else {
                    (start, until)
                };
                s.spawn(move || {
                    chunk(
                        schema,
                        text,
                        (start, until),
                        room,
                        (pos, header_len),
                        max_rows,
                    )
                })
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
/// `room` is the span of the text to size the columns for.
fn chunk(
    schema: &Schema,
    text: &str,
    (start, until): (usize, usize),
    room: (usize, usize),
    (pos, header_len): (&[usize], usize),
    max_rows: u64,
) -> Option<Vec<ColumnData>> {
    let rows = estimate_rows(&text.as_bytes()[room.0..room.1]);
    let mut columns: Vec<ColumnData> = schema
        .columns
        .iter()
        .map(|c| ColumnData::new(c.ty, rows))
        .collect();
    for col in &mut columns {
        col.reserve_text((room.1 - room.0) / schema.columns.len().max(1));
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

/// How many `"` bytes `b` holds, eight bytes at a time: this scan runs on one thread before the
/// chunks start, over all but the last chunk.
fn count_quotes(b: &[u8]) -> usize {
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    const QUOTES: u64 = 0x2222_2222_2222_2222;
    let mut words = b.chunks_exact(8);
    let mut n = 0usize;
    for w in &mut words {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        let x = u64::from_le_bytes(word) ^ QUOTES;
        // The high bit of each byte of `x` that is zero (exact: no carry crosses a byte).
        let zero = !(((x & LOW7) + LOW7) | x | LOW7);
        n += zero.count_ones() as usize;
    }
    n + words.remainder().iter().filter(|&&c| c == b'"').count()
}

#[cfg(test)]
mod tests {
    proptest::proptest! {
        #[test]
        fn quotes_are_counted_exactly(s in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80), from in 0usize..80) {
            let from = from.min(s.len());
            let b = &s[from..];
            let slow = b.iter().filter(|&&c| c == b'"').count();
            proptest::prop_assert_eq!(super::count_quotes(b), slow);
        }

        #[test]
        fn quote_runs_and_neighbours_are_counted(n in 0usize..40, pad in proptest::sample::select(vec![0x21u8, 0x23, 0xA2, 0x02, 0x00, 0xFF])) {
            let mut b = vec![pad; 3];
            b.extend(std::iter::repeat_n(b'"', n));
            b.extend([pad; 5]);
            proptest::prop_assert_eq!(super::count_quotes(&b), n);
        }
    }
}
