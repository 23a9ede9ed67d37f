//! The fast read of a CSV table: its header, then its body in pieces cut at record starts as the file is read, typed by `scan` on every core in turn and joined in file order as each next piece is done.
//!
//! A piece ends after a line break with an even number of quotes before it (outside any quoted
//! field in an RFC 4180 text). Each piece is checked to hold whole records: it must be valid
//! UTF-8 on its own and its scan must end exactly at its end, so by induction from the first
//! piece every piece read the records one reader would have read. Anything unusual (a problem in
//! any cell, a CSV error, the row limit, a misjudged boundary, an unusual header) answers `None`,
//! and the caller reads the table on one thread, which reports exactly what it finds.
//!
//! Memory: only the pieces being typed, and those typed ahead of the next one to join, are alive
//! beside the joined table; a thread waits before reading a piece too far ahead (decision 0182).

use super::column::ColumnData;
use super::csv;
use super::keys::KeyHasher;
use super::pieces::{count_quotes, Pieces};
use super::scan::{Chunk, Plan};
use super::schema::Schema;
use crate::files::stream::Source;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::{Condvar, Mutex, MutexGuard};

/// A piece holds at least this many bytes of records (a body no larger is read by one thread).
const PIECE_BYTES: usize = 1 << 18;
/// Pieces a thread may read ahead of the next one to join, per thread.
const AHEAD_PER_THREAD: usize = 2;

/// A table read by the fast path.
#[derive(Debug)]
pub(super) struct Fast {
    pub columns: Vec<ColumnData>,
    pub rows: usize,
    /// The hash of each row's key by the table's `KeyHasher` (keyed tables).
    pub key_hashes: Vec<u64>,
}

/// The typed columns of the CSV table `bytes`, or `None` to read it with the exact reader.
pub(super) fn read(
    schema: &Schema,
    bytes: &[u8],
    max_rows: u64,
    hasher: &KeyHasher,
) -> Option<Fast> {
    read_from(schema, &mut { bytes }, max_rows, hasher)
}

/// The typed columns of the CSV table read from `src`, or `None` to read it with the exact
/// reader (`src` is then left part-read).
pub(super) fn read_from(
    schema: &Schema,
    src: &mut dyn Source,
    max_rows: u64,
    hasher: &KeyHasher,
) -> Option<Fast> {
    let mut pieces = Pieces::new(src, PIECE_BYTES);
    let total = pieces.len_hint();
    let first = pieces.next()?;
    let bom = if first.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let bytes = first.get(bom..)?;
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
    // The first piece's columns become the table's: they get room for the whole file, so
    // joining copies only the later pieces (room never touched is never paged in).
    let body = bytes.get(head_len..)?;
    let room = total.saturating_sub(bom + head_len).max(body.len());
    read_body(&plan, pieces, (body, room), max_rows)
}

/// What the threads share: the pieces still to read and the chunks typed so far.
struct Shared<'s> {
    pieces: Pieces<'s>,
    /// Chunks typed but not joined yet, by piece number.
    waiting: Vec<(usize, Chunk)>,
    /// The chunks joined so far (pieces `0..joined`).
    table: Option<Chunk>,
    joined: usize,
}

impl Shared<'_> {
    /// Joins chunk `k` and any waiting chunks that follow the joined ones; `false` when the
    /// table then holds more than `max_rows` rows.
    fn add(&mut self, k: usize, chunk: Chunk, max_rows: u64) -> bool {
        self.waiting.push((k, chunk));
        while let Some(i) = self.waiting.iter().position(|(j, _)| *j == self.joined) {
            let (_, c) = self.waiting.swap_remove(i);
            match &mut self.table {
                None => self.table = Some(c),
                Some(t) => {
                    for (a, b) in t.columns.iter_mut().zip(c.columns) {
                        a.append(b);
                    }
                    t.key_hashes.extend_from_slice(&c.key_hashes);
                    t.rows += c.rows;
                }
            }
            self.joined += 1;
        }
        self.table.as_ref().map_or(0, |t| t.rows) as u64 <= max_rows
    }
}

/// Calls its function when dropped by a panicking thread.
struct GiveUpOnPanic<F: Fn()>(F);

impl<F: Fn()> Drop for GiveUpOnPanic<F> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            (self.0)();
        }
    }
}

fn lock<'a, 's>(m: &'a Mutex<Shared<'s>>) -> MutexGuard<'a, Shared<'s>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The body's records: the first piece's (`body`, typed into columns with room for `room`
/// bytes), then the other pieces, taken in turn by one thread per core when there are several.
fn read_body(
    plan: &Plan<'_>,
    pieces: Pieces<'_>,
    (body, room): (&[u8], usize),
    max_rows: u64,
) -> Option<Fast> {
    let cores = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(16);
    let threads = cores.min(room.div_ceil(PIECE_BYTES)).max(1);
    let ahead = threads * AHEAD_PER_THREAD;
    let shared = Mutex::new(Shared {
        pieces,
        waiting: Vec::new(),
        table: None,
        joined: 0,
    });
    let (turn, failed) = (Condvar::new(), AtomicBool::new(false));
    let give_up = || {
        failed.store(true, Relaxed);
        turn.notify_all();
    };
    // Each thread reads the next piece (the read hashes it) unless it would be too far ahead
    // of the joined ones, types it, drops its bytes and joins what it can. A thread that
    // panics gives up for all, so none waits for a piece that will never be joined.
    let work = || {
        let _guard = GiveUpOnPanic(&give_up);
        loop {
            let (k, bytes) = {
                let mut s = lock(&shared);
                while !failed.load(Relaxed) && s.pieces.taken >= s.joined + ahead {
                    s = turn.wait(s).unwrap_or_else(|e| e.into_inner());
                }
                if failed.load(Relaxed) {
                    return;
                }
                let k = s.pieces.taken;
                match s.pieces.next() {
                    Some(b) => (k, b),
                    None => return,
                }
            };
            let chunk = plan.chunk(&bytes, bytes.len(), max_rows);
            drop(bytes);
            if !chunk.is_some_and(|c| lock(&shared).add(k, c, max_rows)) {
                return give_up();
            }
            turn.notify_all();
        }
    };
    std::thread::scope(|s| {
        let others: Vec<_> = (1..threads).map(|_| s.spawn(work)).collect();
        if plan
            .chunk(body, room, max_rows)
            .is_some_and(|c| lock(&shared).add(0, c, max_rows))
        {
            turn.notify_all();
        } else {
            give_up();
        }
        work();
        for h in others {
            if h.join().is_err() {
                give_up();
            }
        }
    });
    let s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if failed.load(Relaxed) || !s.pieces.done() || !s.waiting.is_empty() {
        return None;
    }
    let t = s.table?;
    (s.joined == s.pieces.taken && t.rows as u64 <= max_rows).then_some(Fast {
        columns: t.columns,
        rows: t.rows,
        key_hashes: t.key_hashes,
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
