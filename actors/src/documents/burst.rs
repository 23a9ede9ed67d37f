//! One undo step per typing burst: composing two sequential byte-edit lists into one, so a burst's edits fold into its step.
//!
//! An edit that names the `burst` of the newest undo step, by the same principal, with no other
//! text change between, extends that step instead of pushing one (decision 0413). The step keeps
//! one inverse: the new edit's inverse composed with the step's, exact and independent of the
//! buffer's size.

use super::entity::{DocumentEntity, UndoStep};
use super::text::ByteEdit;
use crate::entity::EventMeta;
use std::collections::VecDeque;

impl DocumentEntity {
    /// Folds one transaction of edits: a new undo step, or the newest step extended when the edit
    /// continues its burst (same burst and principal, no other text change since).
    pub(super) fn edited(&mut self, edits: &[ByteEdit], burst: Option<&String>, meta: &EventMeta) {
        let continues = burst.is_some() && self.continues(burst, &meta.principal);
        // Decisions validated these edits against this very text; one that does not fit would
        // be a bug, and the fold then leaves the text unchanged rather than panic.
        if let Some(inverse) = self.splice(edits) {
            let folded = match self.undo.last() {
                Some(top) if continues => compose(&inverse, &top.inverse),
                _ => None,
            };
            if let (Some(inverse), Some(top)) = (folded, self.undo.last_mut()) {
                let bytes = undo_cost(&inverse);
                self.undo_bytes = self.undo_bytes.saturating_sub(top.bytes) + bytes;
                *top = UndoStep {
                    version: self.version + 1,
                    inverse,
                    bytes,
                    burst: top.burst.take(),
                };
            } else {
                let bytes = undo_cost(&inverse);
                self.undo.push(UndoStep {
                    version: self.version + 1,
                    inverse,
                    bytes,
                    burst: burst.cloned(),
                });
                self.undo_bytes += bytes;
            }
        }
        self.version += 1;
        self.dirty = true;
        self.author(meta);
    }

    /// True when an edit of `burst` by `principal` continues the newest undo step.
    fn continues(&self, burst: Option<&String>, principal: &str) -> bool {
        let (Some(top), Some(last)) = (self.undo.last(), self.authors.back()) else {
            return false;
        };
        top.burst.as_ref() == burst
            && top.version == self.version
            && last.version == self.version
            && last.principal == principal
    }
}

/// What an undo step's edits cost against `documents.maxUndoBytes`.
fn undo_cost(inverse: &[ByteEdit]) -> u64 {
    inverse.iter().map(|e| e.text.len() as u64 + 16).sum()
}

/// One operation of an edit list walked from the start of the text it applies to.
#[derive(Debug, Clone)]
enum Op {
    Retain(u64),
    Delete(u64),
    Insert(String),
}

/// The operations of ascending, non-overlapping `edits` (an implicit retain follows the last).
fn ops(edits: &[ByteEdit]) -> Option<VecDeque<Op>> {
    let mut out = VecDeque::with_capacity(edits.len() * 3);
    let mut pos = 0u64;
    for e in edits {
        if e.start < pos || e.end < e.start {
            return None;
        }
        if e.start > pos {
            out.push_back(Op::Retain(e.start - pos));
        }
        if e.end > e.start {
            out.push_back(Op::Delete(e.end - e.start));
        }
        if !e.text.is_empty() {
            out.push_back(Op::Insert(e.text.clone()));
        }
        pos = e.end;
    }
    Some(out)
}

/// Builds ascending byte edits from operations over the first text.
#[derive(Default)]
struct Builder {
    pos: u64,
    open: Option<ByteEdit>,
    out: Vec<ByteEdit>,
}

impl Builder {
    fn retain(&mut self, n: u64) {
        if let Some(e) = self.open.take() {
            self.out.push(e);
        }
        self.pos += n;
    }

    fn here(&mut self) -> &mut ByteEdit {
        let pos = self.pos;
        self.open.get_or_insert_with(|| ByteEdit {
            start: pos,
            end: pos,
            text: String::new(),
        })
    }

    fn delete(&mut self, n: u64) {
        self.here().end += n;
        self.pos += n;
    }

    fn insert(&mut self, t: &str) {
        self.here().text.push_str(t);
    }

    fn finish(mut self) -> Vec<ByteEdit> {
        self.retain(0);
        self.out
    }
}

/// Length of an operation in the middle text (what `first` produces and `second` consumes).
fn middle_len(op: &Op) -> u64 {
    match op {
        Op::Retain(n) | Op::Delete(n) => *n,
        Op::Insert(t) => t.len() as u64,
    }
}

/// What is left of `op` after its first `n` middle bytes; `None` if nothing (or a split char).
fn rest(op: Op, n: u64) -> Option<Option<Op>> {
    let left = middle_len(&op) - n;
    if left == 0 {
        return Some(None);
    }
    Some(Some(match op {
        Op::Retain(_) => Op::Retain(left),
        Op::Delete(_) => Op::Delete(left),
        Op::Insert(t) => Op::Insert(t.get(n as usize..)?.to_string()),
    }))
}

/// `first` (over text A, giving B) then `second` (over B, giving C) as one edit list over A giving
/// C. `None` if either list is not ascending or `second` splits a character `first` inserted.
pub fn compose(first: &[ByteEdit], second: &[ByteEdit]) -> Option<Vec<ByteEdit>> {
    let (mut xs, mut ys) = (ops(first)?, ops(second)?);
    let mut out = Builder::default();
    loop {
        if let Some(Op::Insert(_)) = ys.front() {
            if let Some(Op::Insert(t)) = ys.pop_front() {
                out.insert(&t);
            }
            continue;
        }
        if let Some(Op::Delete(_)) = xs.front() {
            if let Some(Op::Delete(n)) = xs.pop_front() {
                out.delete(n);
            }
            continue;
        }
        // Both now walk the middle text: `first` keeps or inserts it, `second` keeps or deletes it.
        let (x, y) = (xs.pop_front(), ys.pop_front());
        let n = match (&x, &y) {
            (None, None) => break,
            (Some(a), None) => middle_len(a),
            (None, Some(b)) => middle_len(b),
            (Some(a), Some(b)) => middle_len(a).min(middle_len(b)),
        };
        match (&x, &y) {
            (Some(Op::Insert(t)), Some(Op::Retain(_)) | None) => out.insert(t.get(..n as usize)?),
            (Some(Op::Insert(_)), Some(_)) => {}
            (_, Some(Op::Delete(_))) => out.delete(n),
            _ => out.retain(n),
        }
        if let Some(x) = x {
            if let Some(r) = rest(x, n)? {
                xs.push_front(r);
            }
        }
        if let Some(y) = y {
            if let Some(r) = rest(y, n)? {
                ys.push_front(r);
            }
        }
    }
    Some(out.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::documents::text::apply_bytes;
    use proptest::prelude::*;

    /// Ascending, non-overlapping byte edits of `text` at its char boundaries, from raw picks.
    fn edits_of(text: &str, raw: &[(usize, usize, String)]) -> Vec<ByteEdit> {
        let cuts: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        let mut picks: Vec<(usize, usize, String)> = raw
            .iter()
            .map(|(s, w, t)| {
                let a = s % cuts.len();
                let b = (a + w % 3).min(cuts.len() - 1);
                (cuts[a], cuts[b], t.clone())
            })
            .collect();
        picks.sort_by_key(|p| (p.0, p.1));
        let mut out: Vec<ByteEdit> = Vec::new();
        for (a, b, t) in picks {
            if out.last().is_some_and(|l| (a as u64) < l.end) {
                continue;
            }
            out.push(ByteEdit {
                start: a as u64,
                end: b as u64,
                text: t,
            });
        }
        out
    }

    fn piece() -> impl Strategy<Value = String> {
        prop::sample::select(vec!["", "a", "é", "😀", "\r\n", "中文", "xy"]).prop_map(String::from)
    }

    fn raw() -> impl Strategy<Value = Vec<(usize, usize, String)>> {
        prop::collection::vec((0usize..40, 0usize..3, piece()), 0..5)
    }

    proptest! {
        #[test]
        fn composed_edits_equal_the_two_in_sequence(base in prop::collection::vec(piece(), 0..8), r1 in raw(), r2 in raw()) {
            let a = base.concat();
            let first = edits_of(&a, &r1);
            let mut b = a.clone();
            let (inv1, _) = apply_bytes(&mut b, &first).unwrap();
            let second = edits_of(&b, &r2);
            let mut c = b.clone();
            let (inv2, _) = apply_bytes(&mut c, &second).unwrap();
            // Forward: A -> C in one list.
            let mut via = a.clone();
            apply_bytes(&mut via, &compose(&first, &second).unwrap()).unwrap();
            prop_assert_eq!(&via, &c);
            // Backward, as a burst's undo step holds it: C -> A in one list.
            let mut back = c.clone();
            apply_bytes(&mut back, &compose(&inv2, &inv1).unwrap()).unwrap();
            prop_assert_eq!(&back, &a);
        }
    }

    #[test]
    fn typing_a_word_folds_into_one_deletion() {
        let e = |s, en, t: &str| ByteEdit {
            start: s,
            end: en,
            text: t.into(),
        };
        // "ab" typed at 0 of "z", one key at a time: the inverses are (0,1,"") then (1,2,"").
        let undo = compose(&[e(1, 2, "")], &[e(0, 1, "")]).unwrap();
        assert_eq!(undo, vec![e(0, 2, "")]);
        assert!(
            compose(&[e(2, 2, "x"), e(0, 0, "y")], &[]).is_none(),
            "descending"
        );
        assert!(
            compose(&[e(0, 0, "😀")], &[e(1, 1, "x")]).is_none(),
            "splits an emoji"
        );
    }
}
