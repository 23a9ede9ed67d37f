//! The fast read of a CSV table: its header, then its body in pieces split at record starts, typed by `scan` on every core in turn, then joined in order.
//!
//! A chunk boundary is a line break with an even number of quotes before it (outside any quoted
//! field in an RFC 4180 text). Each chunk is checked to hold whole records: it must be valid
//! UTF-8 on its own and its scan must end exactly at its end, so by induction from the first
//! chunk every chunk read the records one reader would have read. Anything unusual (a problem in
//! any cell, a CSV error, the row limit, a misjudged boundary, an unusual header) answers `None`,
//! and the caller reads the table on one thread, which reports exactly what it finds.

use super::column::ColumnData;
use super::csv;
use super::keys::KeyHasher;
use super::scan::{Chunk, Plan};
use super::schema::Schema;

/// A body is cut into pieces of at least this many bytes (below it, one thread reads it).
const MIN_PIECE_BYTES: usize = 1 << 20;
/// Pieces per core: a core that another process slows takes fewer of them.
const PIECES_PER_CORE: usize = 4;

/// A table read by the fast path.
#[derive(Debug)]
pub(super) struct Fast {
    pub columns: Vec<ColumnData>,
    pub rows: usize,
    /// The hash of each row's key by the table's `KeyHasher` (keyed tables).
    pub key_hashes: Vec<u64>,
}

/// The typed columns of a CSV table, or `None` to read it with the exact reader.
pub(super) fn read(
    schema: &Schema,
    bytes: &[u8],
    max_rows: u64,
    hasher: &KeyHasher,
) -> Option<Fast> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let head_len = next_start(bytes, 0, 0).map_or(bytes.len(), |(p, _)| p);
    let head = std::str::from_utf8(bytes.get(..head_len)?).ok()?;
    let mut header: Option<(Vec<usize>, usize)> = None;
    let (end, _) = csv::records(head, 0, 1, 1, |fields| {
        let pos = schema
            .columns
            .iter()
            .map(|c| fields.iter().position(|f| *f == c.name.as_str()))
            .collect::<Option<Vec<usize>>>();
        header = pos.map(|p| (p, fields.len()));
        false
    })
    .ok()?;
    let (pos, header_len) = header?;
    if end != head_len {
        return None;
    }
    let plan = Plan::new(schema, &pos, header_len, hasher)?;
    read_body(&plan, bytes.get(head_len..)?, max_rows)
}

/// The body's records: in pieces taken in turn by one thread per core when it is large.
fn read_body(plan: &Plan<'_>, body: &[u8], max_rows: u64) -> Option<Fast> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    let starts = boundaries(
        body,
        (body.len() / MIN_PIECE_BYTES).clamp(1, cores * PIECES_PER_CORE),
    );
    let n = starts.len();
    let span = |k: usize| {
        let end = starts.get(k + 1).copied().unwrap_or(body.len());
        body.get(*starts.get(k)?..end)
    };
    let (next, failed) = (AtomicUsize::new(0), AtomicBool::new(false));
    // Each thread takes the next piece until none is left or one gave up. The first piece's
    // columns become the table's: they get room for the whole body, so joining copies only the
    // later pieces (room never touched is never paged in).
    let work = || {
        let mut done = Vec::new();
        while !failed.load(Relaxed) {
            let k = next.fetch_add(1, Relaxed);
            if k >= n {
                break;
            }
            let chunk = span(k).and_then(|p| {
                let room = if k == 0 { body.len() } else { p.len() };
                plan.chunk(p, room, max_rows)
            });
            failed.fetch_or(chunk.is_none(), Relaxed);
            done.push((k, chunk));
        }
        done
    };
    let mut chunks: Vec<(usize, Option<Chunk>)> = std::thread::scope(|s| {
        let others: Vec<_> = (1..cores.min(n)).map(|_| s.spawn(work)).collect();
        let mut all = work();
        for h in others {
            all.extend(h.join().unwrap_or_default());
        }
        all
    });
    if chunks.len() != n {
        return None;
    }
    chunks.sort_unstable_by_key(|(k, _)| *k);
    let chunks: Vec<Option<Chunk>> = chunks.into_iter().map(|(_, c)| c).collect();
    let mut chunks = chunks
        .into_iter()
        .collect::<Option<Vec<Chunk>>>()?
        .into_iter();
    let mut joined = chunks.next()?;
    let rest: Vec<Chunk> = chunks.collect();
    for (c, col) in joined.columns.iter_mut().enumerate() {
        col.reserve_for(rest.iter().filter_map(|o| o.columns.get(c)));
    }
    joined
        .key_hashes
        .reserve_exact(rest.iter().map(|o| o.key_hashes.len()).sum());
    for other in rest {
        for (a, b) in joined.columns.iter_mut().zip(other.columns) {
            a.append(b);
        }
        joined.key_hashes.extend_from_slice(&other.key_hashes);
        joined.rows += other.rows;
    }
    (joined.rows as u64 <= max_rows).then_some(Fast {
        columns: joined.columns,
        rows: joined.rows,
        key_hashes: joined.key_hashes,
    })
}

/// The index after the first line break at or after `from` with an even number of quotes in
/// `b[..index]` (given `quotes` of them in `b[..from]`), and the quotes in `b[..index]`.
fn next_start(b: &[u8], mut from: usize, mut quotes: usize) -> Option<(usize, usize)> {
    loop {
        let nl = from + memchr::memchr(b'\n', b.get(from..)?)?;
        quotes += count_quotes(&b[from..nl]);
        from = nl + 1;
        if quotes % 2 == 0 {
            return Some((from, quotes));
        }
    }
}

/// Record starts splitting `b` (which starts a record) into about `n` chunks (the first is 0).
fn boundaries(b: &[u8], n: usize) -> Vec<usize> {
    let mut starts = vec![0];
    let (mut at, mut quotes) = (0, 0);
    let step = b.len() / n.max(1);
    for k in 1..n {
        let target = (k * step).max(at);
        quotes += count_quotes(&b[at..target]);
        match next_start(b, target, quotes) {
            Some((p, q)) if p < b.len() => {
                starts.push(p);
                (at, quotes) = (p, q);
            }
            _ => break,
        }
    }
    starts
}

/// How many `"` bytes `b` holds (vectorized: this scan runs on one thread before the chunks
/// start, over all but the last chunk).
fn count_quotes(b: &[u8]) -> usize {
    memchr::memchr_iter(b'"', b).count()
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

        /// Every boundary follows a line break outside quotes, in order, inside the text.
        #[test]
        fn boundaries_follow_line_breaks_outside_quotes(s in "[a\"\n,]{0,200}", n in 1usize..6) {
            let b = s.as_bytes();
            let starts = super::boundaries(b, n);
            proptest::prop_assert_eq!(starts[0], 0);
            for w in starts.windows(2) {
                proptest::prop_assert!(w[0] < w[1]);
            }
            for &p in &starts[1..] {
                proptest::prop_assert!(p < b.len() && b[p - 1] == b'\n');
                proptest::prop_assert_eq!(b[..p].iter().filter(|&&c| c == b'"').count() % 2, 0);
            }
        }
    }
}
