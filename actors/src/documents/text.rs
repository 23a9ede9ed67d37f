//! UTF-16 offsets over UTF-8 text: lengths, offset conversion that never splits a surrogate pair, and edit application.

use serde::{Deserialize, Serialize};

/// One replacement, in UTF-16 code units of the text it applies to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub start: u64,
    pub end: u64,
    pub text: String,
}

/// One replacement in UTF-8 byte offsets, as journaled (computed once from UTF-16 by the decision).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ByteEdit {
    pub start: u64,
    pub end: u64,
    pub text: String,
}

/// The byte edits of a validated plan, in application order (ascending, non-overlapping).
pub fn to_bytes(edits: &[Edit], ranges: &[(usize, usize, usize)]) -> Vec<ByteEdit> {
    ranges
        .iter()
        .map(|&(a, b, i)| ByteEdit {
            start: a as u64,
            end: b as u64,
            text: edits[i].text.clone(),
        })
        .collect()
}

/// Applies ascending, non-overlapping byte edits in place; returns the edits that undo them (in
/// the coordinates of the new text) and the change of the UTF-16 length. `None` (and nothing
/// changed) if an edit does not fit the text's char boundaries.
pub fn apply_bytes(text: &mut String, edits: &[ByteEdit]) -> Option<(Vec<ByteEdit>, i64)> {
    let mut prev_end = 0u64;
    for e in edits {
        let (a, b) = (e.start as usize, e.end as usize);
        if e.start < prev_end
            || a > b
            || b > text.len()
            || !text.is_char_boundary(a)
            || !text.is_char_boundary(b)
        {
            return None;
        }
        prev_end = e.end;
    }
    let mut removed = Vec::with_capacity(edits.len());
    let mut delta16 = 0i64;
    // Back to front, so earlier offsets stay valid.
    for e in edits.iter().rev() {
        let (a, b) = (e.start as usize, e.end as usize);
        let old = text[a..b].to_string();
        delta16 += utf16_len(&e.text) as i64 - utf16_len(&old) as i64;
        text.replace_range(a..b, &e.text);
        removed.push(old);
    }
    removed.reverse();
    let mut shift = 0i64;
    let inverse = edits
        .iter()
        .zip(removed)
        .map(|(e, old)| {
            let start = (e.start as i64 + shift) as u64;
            shift += e.text.len() as i64 - (e.end - e.start) as i64;
            ByteEdit {
                start,
                end: start + e.text.len() as u64,
                text: old,
            }
        })
        .collect();
    Some((inverse, delta16))
}

/// Why an offset or an edit list does not fit a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditError {
    /// `index`: the edit at fault; `reason` says what.
    Invalid { index: usize, reason: String },
}

/// Length in UTF-16 code units.
pub fn utf16_len(s: &str) -> u64 {
    s.chars().map(|c| c.len_utf16() as u64).sum()
}

/// Byte offset of UTF-16 offset `at`; `None` if it is out of range or inside a surrogate pair.
pub fn byte_offset(s: &str, at: u64) -> Option<usize> {
    let mut units = 0u64;
    for (i, c) in s.char_indices() {
        if units == at {
            return Some(i);
        }
        units += c.len_utf16() as u64;
        if units > at {
            return None; // inside a surrogate pair
        }
    }
    (units == at).then_some(s.len())
}

/// The text between two UTF-16 offsets.
pub fn slice(s: &str, start: u64, end: u64) -> Option<&str> {
    if start > end {
        return None;
    }
    let a = byte_offset(s, start)?;
    let b = byte_offset(s, end)?;
    Some(&s[a..b])
}

/// Checks `edits` against `text`: in range, not splitting surrogate pairs, not overlapping
/// (inserts at the same offset are allowed and apply in array order). Returns the edits in
/// application order with their byte ranges.
pub fn plan(text: &str, edits: &[Edit]) -> Result<Vec<(usize, usize, usize)>, EditError> {
    let bad = |index: usize, reason: &str| EditError::Invalid {
        index,
        reason: reason.to_string(),
    };
    let mut ranges = Vec::with_capacity(edits.len());
    for (i, e) in edits.iter().enumerate() {
        if e.start > e.end {
            return Err(bad(i, "start is after end"));
        }
        let a = byte_offset(text, e.start)
            .ok_or_else(|| bad(i, "start is out of range or inside a surrogate pair"))?;
        let b = byte_offset(text, e.end)
            .ok_or_else(|| bad(i, "end is out of range or inside a surrogate pair"))?;
        ranges.push((a, b, i));
    }
    // Stable sort by position keeps inserts at one offset in array order.
    ranges.sort_by_key(|&(a, b, _)| (a, b));
    for w in ranges.windows(2) {
        let ((_, b0, i0), (a1, b1, i1)) = (w[0], w[1]);
        let zero_width_pair = a1 == b1 && b0 == a1;
        if a1 < b0 && !zero_width_pair {
            return Err(bad(i0.max(i1), "edits overlap"));
        }
    }
    Ok(ranges)
}

/// Applies planned edits; returns the new text and, per edit (in array order), the text it removed.
pub fn apply(
    text: &str,
    edits: &[Edit],
    ranges: &[(usize, usize, usize)],
) -> (String, Vec<String>) {
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.text.len()).sum::<usize>());
    let mut removed = vec![String::new(); edits.len()];
    let mut pos = 0;
    for &(a, b, i) in ranges {
        out.push_str(&text[pos..a]);
        out.push_str(&edits[i].text);
        removed[i] = text[a..b].to_string();
        pos = b;
    }
    out.push_str(&text[pos..]);
    (out, removed)
}

/// The edits that undo `edits` (which were applied to a text, removing `removed`), expressed in
/// the coordinates of the resulting text.
pub fn inverse(edits: &[Edit], ranges: &[(usize, usize, usize)], removed: &[String]) -> Vec<Edit> {
    let mut shift: i64 = 0;
    let mut out = Vec::with_capacity(edits.len());
    for &(_, _, i) in ranges {
        let e = &edits[i];
        let start = (e.start as i64 + shift) as u64;
        let inserted = utf16_len(&e.text);
        out.push(Edit {
            start,
            end: start + inserted,
            text: removed[i].clone(),
        });
        shift += inserted as i64 - (e.end - e.start) as i64;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The independent model: a vector of UTF-16 code units.
    fn model_apply(units: &[u16], edits: &[Edit]) -> Vec<u16> {
        let mut order: Vec<usize> = (0..edits.len()).collect();
        order.sort_by_key(|&i| (edits[i].start, edits[i].end));
        let mut out = Vec::new();
        let mut pos = 0usize;
        for i in order {
            let e = &edits[i];
            out.extend_from_slice(&units[pos..e.start as usize]);
            out.extend(e.text.encode_utf16());
            pos = e.end as usize;
        }
        out.extend_from_slice(&units[pos..]);
        out
    }

    fn pieces() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop::sample::select(vec![
                "a",
                "é",
                "e\u{301}",
                "😀",
                "中文",
                "\n",
                "👩‍👩‍👧",
                "\r\n",
                "\u{feff}",
            ]),
            0..8,
        )
        .prop_map(|v| v.concat())
    }

    proptest! {
        #[test]
        fn edits_match_the_utf16_model(base in pieces(), raw in prop::collection::vec((0u64..64, 0u64..8, pieces()), 0..5)) {
            let units: Vec<u16> = base.encode_utf16().collect();
            let len = units.len() as u64;
            // Build non-overlapping edits at valid (non-surrogate-splitting) offsets.
            let valid: Vec<u64> = (0..=len).filter(|&o| byte_offset(&base, o).is_some()).collect();
            let mut edits = Vec::new();
            let mut taken: Vec<(u64, u64)> = Vec::new();
            for (s, w, t) in raw {
                let start = valid[(s as usize) % valid.len()];
                let end = valid.iter().copied().filter(|&o| o >= start).nth(w as usize % 3).unwrap_or(start);
                if taken.iter().any(|&(a, b)| start < b && a < end || (start == end && a < start && start < b)) {
                    continue;
                }
                taken.push((start, end));
                edits.push(Edit { start, end, text: t });
            }
            let ranges = plan(&base, &edits).unwrap();
            let (out, removed) = apply(&base, &edits, &ranges);
            prop_assert_eq!(out.encode_utf16().collect::<Vec<_>>(), model_apply(&units, &edits));
            // The journaled byte form gives the same text, and its inverse restores the base.
            let mut via_bytes = base.clone();
            let (byte_inv, delta) = apply_bytes(&mut via_bytes, &to_bytes(&edits, &ranges)).unwrap();
            prop_assert_eq!(&via_bytes, &out);
            prop_assert_eq!(utf16_len(&base) as i64 + delta, utf16_len(&out) as i64);
            let mut back_bytes = via_bytes.clone();
            apply_bytes(&mut back_bytes, &byte_inv).unwrap();
            prop_assert_eq!(&back_bytes, &base);
            // Undo restores the base exactly.
            let inv = inverse(&edits, &ranges, &removed);
            let r2 = plan(&out, &inv).unwrap();
            let (back, _) = apply(&out, &inv, &r2);
            prop_assert_eq!(back, base);
        }
    }

    #[test]
    fn surrogates_ranges_and_overlaps_are_refused() {
        let t = "a😀b"; // units: a, hi, lo, b
        assert_eq!(utf16_len(t), 4);
        assert_eq!(byte_offset(t, 2), None, "inside the pair");
        assert_eq!(byte_offset(t, 3), Some(5));
        assert_eq!(slice(t, 1, 3), Some("😀"));
        let e = |s, en, x: &str| Edit {
            start: s,
            end: en,
            text: x.into(),
        };
        assert!(matches!(
            plan(t, &[e(2, 2, "x")]),
            Err(EditError::Invalid { index: 0, .. })
        ));
        assert!(matches!(
            plan(t, &[e(0, 1, ""), e(5, 5, "x")]),
            Err(EditError::Invalid { index: 1, .. })
        ));
        assert!(matches!(
            plan(t, &[e(0, 3, ""), e(1, 4, "")]),
            Err(EditError::Invalid { .. })
        ));
        // Two inserts at one offset apply in array order.
        let edits = [e(1, 1, "X"), e(1, 1, "Y")];
        let r = plan(t, &edits).unwrap();
        assert_eq!(apply(t, &edits, &r).0, "aXY😀b");
    }
}
