//! A buffer's changes as observers see them: each version's kind, base, author and UTF-16 edits
//! (base coordinates, bounded), derived from the journaled events by folding them in order.

use super::entity::DocumentEntity;
use super::events::DocumentEvent;
use super::text::{self, ByteEdit, Edit};
use crate::entity::{decode_event, fold_record, Entity, FoldError};
use rho_journal::{Journal, JournalError};
use uuid::Uuid;

/// One version of a buffer as `document.changed`, `document.changes` and `document.history` show it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// The version this change made.
    pub version: u64,
    /// The version its edits apply to (`version - 1` for text changes; `version` itself for a save).
    pub base_version: u64,
    /// `open`, `edit`, `undo`, `save` or `close`.
    pub kind: &'static str,
    pub author: String,
    pub time_ms: i64,
    pub change_id: Option<String>,
    /// UTF-16 edits of the base text, ascending; `None` when over the size bound (or for an open,
    /// which replaces the text: read it).
    pub edits: Option<Vec<Edit>>,
}

/// Bytes an edit list costs on the wire (the text plus a fixed share for its offsets).
pub fn edits_cost(edits: &[Edit]) -> u64 {
    edits.iter().map(|e| e.text.len() as u64 + 32).sum()
}

/// `edits` if they fit `bound` bytes, else `None` (observers then read the text).
pub fn bounded(edits: Vec<Edit>, bound: u64) -> Option<Vec<Edit>> {
    (edits_cost(&edits) <= bound).then_some(edits)
}

/// Ascending byte edits of `base` converted to UTF-16 offsets of `base`; `None` if one does not fit.
pub fn to_utf16(base: &str, edits: &[ByteEdit]) -> Option<Vec<Edit>> {
    let mut out = Vec::with_capacity(edits.len());
    let (mut at_byte, mut at16) = (0usize, 0u64);
    for e in edits {
        let (a, b) = (e.start as usize, e.end as usize);
        if a < at_byte || b < a || b > base.len() {
            return None;
        }
        let start = at16 + text::utf16_len(base.get(at_byte..a)?);
        let end = start + text::utf16_len(base.get(a..b)?);
        out.push(Edit {
            start,
            end,
            text: e.text.clone(),
        });
        (at_byte, at16) = (b, end);
    }
    Some(out)
}

/// UTF-16 request edits in application order (ascending; inserts at one offset keep array order).
pub fn sorted(edits: &[Edit]) -> Vec<Edit> {
    let mut out = edits.to_vec();
    out.sort_by_key(|e| (e.start, e.end));
    out
}

/// The UTF-16 edits the next undo of `doc` applies (base: its current text), if it has one.
pub fn undo_preview(doc: &DocumentEntity) -> Option<Vec<Edit>> {
    to_utf16(&doc.text, &doc.undo.last()?.inverse)
}

/// The change `event` makes to `before` (the buffer just before it), if it is one observers see.
fn change_of(before: &DocumentEntity, event: &DocumentEvent, bound: u64) -> Option<Change> {
    let next = before.version + 1;
    let (kind, version, base, edits) = match event {
        DocumentEvent::Opened { .. } => ("open", next, before.version, None),
        DocumentEvent::Edited { edits } | DocumentEvent::BurstEdited { edits, .. } => {
            ("edit", next, before.version, to_utf16(&before.text, edits))
        }
        DocumentEvent::Undone { .. } => ("undo", next, before.version, undo_preview(before)),
        DocumentEvent::Reloaded { edits, .. } => (
            "reload",
            next,
            before.version,
            to_utf16(&before.text, edits),
        ),
        DocumentEvent::Saved { version, .. } => ("save", *version, *version, Some(Vec::new())),
        DocumentEvent::Closed => ("close", before.version, before.version, Some(Vec::new())),
        DocumentEvent::SaveIntended { .. }
        | DocumentEvent::SaveAbandoned { .. }
        | DocumentEvent::DiskChanged { .. } => return None,
    };
    Some(Change {
        version,
        base_version: base,
        kind,
        author: String::new(),
        time_ms: 0,
        change_id: None,
        edits: edits.and_then(|e| bounded(e, bound)),
    })
}

/// Why a walk of the journal failed.
#[derive(Debug, thiserror::Error)]
pub enum WalkError {
    #[error(transparent)]
    Journal(#[from] JournalError),
    #[error(transparent)]
    Fold(#[from] FoldError),
}

/// Folds buffer `id`'s journaled events from the first, calling `visit` with each change (and the
/// buffer just after it); the walk stops when `visit` answers `false`. Returns the buffer as
/// folded when it stopped.
pub fn walk(
    journal: &Journal,
    id: Uuid,
    bound: u64,
    mut visit: impl FnMut(&Change, &DocumentEntity) -> bool,
) -> Result<DocumentEntity, WalkError> {
    let mut doc = DocumentEntity::default();
    for rec in journal.records_from(1)? {
        let rec = rec?;
        if rec.entity.id != id || rec.entity.kind != DocumentEntity::KIND {
            continue;
        }
        let stamped = decode_event::<DocumentEntity>(&rec)?;
        let change = change_of(&doc, &stamped.event, bound);
        fold_record(&mut doc, &rec)?;
        if let Some(mut change) = change {
            change.author = rec.principal.clone();
            change.time_ms = rec.time_ms;
            change.change_id = rec.change_id.clone();
            if !visit(&change, &doc) {
                break;
            }
        }
    }
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn be(start: u64, end: u64, text: &str) -> ByteEdit {
        ByteEdit {
            start,
            end,
            text: text.into(),
        }
    }

    #[test]
    fn byte_edits_become_utf16_offsets_of_the_base() {
        // "a😀b" is bytes a(0) 😀(1..5) b(5); UTF-16 a(0) 😀(1..3) b(3).
        let got = to_utf16("a😀b", &[be(1, 5, "x"), be(6, 6, "!")]).unwrap();
        assert_eq!(
            got[0],
            Edit {
                start: 1,
                end: 3,
                text: "x".into()
            }
        );
        assert_eq!(
            got[1],
            Edit {
                start: 4,
                end: 4,
                text: "!".into()
            }
        );
        assert!(to_utf16("ab", &[be(1, 1, ""), be(0, 0, "")]).is_none());
        assert!(to_utf16("ab", &[be(0, 3, "")]).is_none());
        assert!(to_utf16("a😀", &[be(2, 2, "")]).is_none());
    }

    #[test]
    fn edits_over_the_bound_are_left_out() {
        let big = vec![Edit {
            start: 0,
            end: 0,
            text: "x".repeat(100),
        }];
        assert!(bounded(big.clone(), 131).is_none());
        assert_eq!(bounded(big.clone(), 132), Some(big));
    }
}
