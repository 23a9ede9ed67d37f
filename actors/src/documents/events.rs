//! Events of a document buffer, as journaled: the opened base text once, then edits (never the whole text).

use super::text::ByteEdit;
use crate::entity::EntityEvent;
use serde::{Deserialize, Serialize};

/// A change to one document buffer. Variants are only ever appended (their index is the wire tag).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum DocumentEvent {
    /// The buffer was opened from disk (`disk_digest` of the bytes read), or created empty for a
    /// file that does not exist yet (`disk_digest: None`).
    Opened {
        path: String,
        text: String,
        disk_digest: Option<String>,
    },
    /// One transaction of edits, in UTF-8 byte offsets of the previous version's text, ascending
    /// (the decision validated the UTF-16 offsets the caller sent and converted them once).
    Edited { edits: Vec<ByteEdit> },
    /// The newest not-yet-undone transaction (at `reverted`) was reverted as a new version.
    Undone { reverted: u64 },
    /// A save of `version` is about to replace the file with bytes of digest `target`.
    SaveIntended { version: u64, target: String },
    /// The file now holds `version` (digest `disk_digest`).
    Saved { version: u64, disk_digest: String },
    /// A save intent did not complete (its file was not replaced).
    SaveAbandoned { reason: String },
    /// The buffer was closed: undo history dropped; a later open continues the version numbers.
    Closed,
    /// [`DocumentEvent::Edited`] as part of typing burst `burst`: it folds into the newest undo
    /// step when that step is the same burst's, by the same principal, with no change between.
    BurstEdited { edits: Vec<ByteEdit>, burst: String },
    /// A clean buffer took what its file now holds (written outside the buffer, by an Agent's
    /// own tools): one undoable transaction, the buffer clean at the file's digest.
    Reloaded {
        edits: Vec<ByteEdit>,
        disk_digest: String,
    },
    /// The file changed on disk under a buffer with unsaved changes (`None`: it was deleted);
    /// the buffer is left as it is and the save's conflict path decides.
    DiskChanged { disk_digest: Option<String> },
}

impl EntityEvent for DocumentEvent {
    fn kind(&self) -> &'static str {
        match self {
            DocumentEvent::Opened { .. } => "document.opened",
            DocumentEvent::Edited { .. } | DocumentEvent::BurstEdited { .. } => "document.edited",
            DocumentEvent::Undone { .. } => "document.undone",
            DocumentEvent::SaveIntended { .. } => "document.save-intended",
            DocumentEvent::Saved { .. } => "document.saved",
            DocumentEvent::SaveAbandoned { .. } => "document.save-abandoned",
            DocumentEvent::Closed => "document.closed",
            DocumentEvent::Reloaded { .. } => "document.reloaded",
            DocumentEvent::DiskChanged { .. } => "document.disk-changed",
        }
    }

    fn summary(&self) -> String {
        match self {
            DocumentEvent::Opened {
                path,
                text,
                disk_digest,
            } => match disk_digest {
                Some(_) => format!("opened {path:?} ({} bytes)", text.len()),
                None => format!("opened {path:?} as a new file"),
            },
            DocumentEvent::Edited { edits } => {
                let inserted: usize = edits.iter().map(|e| e.text.len()).sum();
                format!("{} edit(s), {inserted} bytes inserted", edits.len())
            }
            DocumentEvent::BurstEdited { edits, burst } => {
                let inserted: usize = edits.iter().map(|e| e.text.len()).sum();
                format!(
                    "{} edit(s), {inserted} bytes inserted (burst {burst})",
                    edits.len()
                )
            }
            DocumentEvent::Undone { reverted } => format!("undid version {reverted}"),
            DocumentEvent::SaveIntended { version, .. } => format!("saving version {version}"),
            DocumentEvent::Saved { version, .. } => format!("saved version {version}"),
            DocumentEvent::SaveAbandoned { reason } => format!("save abandoned: {reason}"),
            DocumentEvent::Closed => "closed".to_string(),
            DocumentEvent::Reloaded { edits, .. } => {
                let inserted: usize = edits.iter().map(|e| e.text.len()).sum();
                format!(
                    "reloaded from disk: {} edit(s), {inserted} bytes inserted",
                    edits.len()
                )
            }
            DocumentEvent::DiskChanged { disk_digest } => match disk_digest {
                Some(d) => format!("the file changed on disk ({d}) under unsaved changes"),
                None => "the file was deleted under unsaved changes".to_string(),
            },
        }
    }
}
