//! A CSV text cut into pieces of whole records as it is read: each piece ends after a line break with an even number of quotes before it, so it holds only whole records.
//!
//! A boundary is a line break outside any quoted field of an RFC 4180 text (an even number of
//! quotes before it, counted from the start of the text). The reader keeps only what it has not
//! handed out yet: the tail after the last boundary it found.

use crate::files::stream::Source;

/// How many more bytes a piece reads at a time when no boundary came up yet.
const GROW: usize = 1 << 16;

/// The pieces of one text, in order.
pub(super) struct Pieces<'s> {
    src: &'s mut dyn Source,
    /// Bytes read after the last piece's end (they start a record).
    carry: Vec<u8>,
    target: usize,
    /// How many pieces were handed out.
    pub taken: usize,
    ended: bool,
}

impl<'s> Pieces<'s> {
    /// The pieces of `src`, each at least `target` bytes unless the text ends first.
    pub(super) fn new(src: &'s mut dyn Source, target: usize) -> Pieces<'s> {
        Pieces {
            src,
            carry: Vec::new(),
            target: target.max(1),
            taken: 0,
            ended: false,
        }
    }

    /// About how many bytes the whole text has.
    pub(super) fn len_hint(&self) -> usize {
        self.src.len_hint()
    }

    /// Whether the text was read to its end and every byte handed out.
    pub(super) fn done(&self) -> bool {
        self.ended && self.carry.is_empty()
    }

    /// The next piece: whole records from where the last one ended, through the first boundary
    /// at or after `target` bytes (or to the end of the text); `None` once all was handed out.
    pub(super) fn next(&mut self) -> Option<Vec<u8>> {
        let mut buf = Vec::with_capacity(self.target.max(self.carry.len()) + GROW);
        buf.append(&mut self.carry);
        while !self.ended && buf.len() < self.target {
            let want = self.target - buf.len();
            self.ended = self.src.read_into(&mut buf, want) == 0;
        }
        // `quotes` counts the quotes of `buf[..from]`; `seen` is where the search for the next
        // line break resumes (the bytes from `from` to `seen` hold none).
        let from = self.target.min(buf.len());
        let (mut from, mut seen, mut quotes) = (from, from, count_quotes(&buf[..from]));
        loop {
            if let Some(nl) = buf.get(seen..).and_then(|b| memchr::memchr(b'\n', b)) {
                let nl = seen + nl;
                quotes += count_quotes(&buf[from..nl]);
                (from, seen) = (nl + 1, nl + 1);
                if quotes % 2 == 0 && from < buf.len() {
                    self.carry = buf.split_off(from);
                    break;
                }
                continue;
            }
            seen = buf.len();
            if self.ended || self.src.read_into(&mut buf, GROW) == 0 {
                self.ended = true;
                break;
            }
        }
        if buf.is_empty() {
            return None;
        }
        self.taken += 1;
        Some(buf)
    }
}

/// How many `"` bytes `b` holds (vectorized: the cut runs under the pieces' lock).
pub(super) fn count_quotes(b: &[u8]) -> usize {
    memchr::memchr_iter(b'"', b).count()
}

#[cfg(test)]
mod tests {
    use super::Pieces;

    proptest::proptest! {
        #[test]
        fn quotes_are_counted_exactly(s in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..80), from in 0usize..80) {
            let from = from.min(s.len());
            let b = &s[from..];
            let slow = b.iter().filter(|&&c| c == b'"').count();
            proptest::prop_assert_eq!(super::count_quotes(b), slow);
        }

        /// The pieces put back together are the text, and every piece but the last ends after
        /// a line break outside quotes.
        #[test]
        fn pieces_end_after_line_breaks_outside_quotes(s in "[a\"\n,]{0,300}", target in 1usize..40) {
            let b = s.as_bytes();
            let mut src: &[u8] = b;
            let mut pieces = Pieces::new(&mut src, target);
            let mut all = Vec::new();
            let mut ends = Vec::new();
            while let Some(p) = pieces.next() {
                proptest::prop_assert!(!p.is_empty());
                all.extend_from_slice(&p);
                ends.push(all.len());
            }
            proptest::prop_assert!(pieces.done());
            proptest::prop_assert_eq!(pieces.taken, ends.len());
            proptest::prop_assert_eq!(&all[..], b);
            ends.pop();
            for p in ends {
                proptest::prop_assert!(b[p - 1] == b'\n');
                proptest::prop_assert_eq!(b[..p].iter().filter(|&&c| c == b'"').count() % 2, 0);
            }
        }
    }
}
