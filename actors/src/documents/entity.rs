//! The document buffer entity: state, fold and decisions (identity first, then version).

use super::events::DocumentEvent;
use super::text::{self, ByteEdit, Edit, EditError};
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Authors remembered per buffer.
const AUTHORS: usize = 10;

/// Longest `burst` id an edit may name, in bytes.
const MAX_BURST_ID: usize = 64;

/// One undoable transaction, or one burst of them: the edits that revert it, in the coordinates
/// of the text right after it (`version`, its newest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoStep {
    pub version: u64,
    pub inverse: Vec<ByteEdit>,
    pub bytes: u64,
    /// The burst the step's edits named (`document.edit {burst}`); later edits of it fold in.
    pub burst: Option<String>,
}

/// Who made a version.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Author {
    pub version: u64,
    pub principal: String,
    pub time_ms: i64,
}

/// A save whose file replacement has not been confirmed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingSave {
    pub version: u64,
    pub target: String,
}

/// One shared buffer: a pure fold of its events.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocumentEntity {
    pub path: String,
    pub text: String,
    /// Length of `text` in UTF-16 units (kept by the fold, so replies never rescan the text).
    pub len16: u64,
    /// Grows with every event that changes the text or reopens it; never reused.
    pub version: u64,
    pub open: bool,
    /// Digest of the file as last read or saved; `None` while the file does not exist yet.
    pub disk_digest: Option<String>,
    pub dirty: bool,
    pub undo: Vec<UndoStep>,
    pub undo_bytes: u64,
    pub authors: VecDeque<Author>,
    pub pending_save: Option<PendingSave>,
    identities: IdentityTable<DocReply>,
    /// Set when the file changed on disk under unsaved changes: `Some(None)` deleted, else the
    /// disk's digest; cleared by a save, a reload or an open.
    pub changed_on_disk: Option<Option<String>>,
}

/// Commands to a buffer. Limits the project knows are passed in.
#[derive(Debug, Clone)]
pub enum DocCommand {
    Open {
        path: String,
        text: String,
        disk_digest: Option<String>,
    },
    Edit {
        expected_version: u64,
        edits: Vec<Edit>,
        /// The typing burst the edit belongs to (decision 0413).
        burst: Option<String>,
        max_bytes: u64,
        max_undo_bytes: u64,
    },
    Undo {
        expected_version: u64,
    },
    /// `disk_now`: the file's digest read just before (None: no file).
    SaveIntent {
        expected_version: u64,
        base_digest: Option<String>,
        disk_now: Option<String>,
    },
    SaveDone {
        version: u64,
        disk_digest: String,
    },
    SaveFailed {
        reason: String,
    },
    Close,
    /// Take the file's new text (`edits` from `expected_version`'s text) into a clean buffer.
    Reload {
        expected_version: u64,
        edits: Vec<ByteEdit>,
        disk_digest: String,
    },
    /// Mark a buffer with unsaved changes whose file changed on disk.
    MarkDiskChanged {
        disk_digest: Option<String>,
    },
}

/// What buffer commands answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DocReply {
    pub version: u64,
    /// Length in UTF-16 units.
    pub length: u64,
    pub disk_digest: Option<String>,
    pub dirty: bool,
    /// UTF-8 bytes of the text (for the project's byte budget).
    pub bytes: u64,
}

fn stale(current: u64) -> ActorError {
    ActorError::Stale {
        current_version: current,
    }
}

impl DocumentEntity {
    pub fn reply(&self) -> DocReply {
        DocReply {
            version: self.version,
            length: self.len16,
            disk_digest: self.disk_digest.clone(),
            dirty: self.dirty,
            bytes: self.text.len() as u64,
        }
    }

    fn next(&self, len16: u64, bytes: u64, dirty: bool, disk: Option<String>) -> DocReply {
        DocReply {
            version: self.version + 1,
            length: len16,
            disk_digest: disk,
            dirty,
            bytes,
        }
    }

    fn check_version(&self, expected: u64) -> Result<(), ActorError> {
        if !self.open {
            return Err(ActorError::NotFound {
                what: "open document".into(),
            });
        }
        if expected != self.version {
            return Err(stale(self.version));
        }
        Ok(())
    }

    pub(super) fn author(&mut self, meta: &EventMeta) {
        self.authors.push_back(Author {
            version: self.version,
            principal: meta.principal.clone(),
            time_ms: meta.time_ms,
        });
        while self.authors.len() > AUTHORS {
            self.authors.pop_front();
        }
    }

    /// Applies byte edits to the text and the cached UTF-16 length; the inverse, if they fit.
    pub(super) fn splice(&mut self, edits: &[ByteEdit]) -> Option<Vec<ByteEdit>> {
        let (inverse, delta) = text::apply_bytes(&mut self.text, edits)?;
        self.len16 = (self.len16 as i64 + delta).max(0) as u64;
        Some(inverse)
    }
}

fn edit_error(e: EditError) -> ActorError {
    match e {
        EditError::Invalid { index, reason } => ActorError::Invalid {
            field: Some("edits".into()),
            index: Some(index as u64),
            reason,
        },
    }
}

impl Entity for DocumentEntity {
    const KIND: &'static str = "document";
    type Event = DocumentEvent;
    type Command = DocCommand;
    type Reply = DocReply;

    fn apply(&mut self, event: &DocumentEvent, meta: &EventMeta) {
        match event {
            DocumentEvent::Opened {
                path,
                text,
                disk_digest,
            } => {
                self.version += 1;
                self.path = path.clone();
                self.text = text.clone();
                self.len16 = text::utf16_len(text);
                self.disk_digest = disk_digest.clone();
                self.open = true;
                self.dirty = false;
                self.changed_on_disk = None;
                self.author(meta);
            }
            DocumentEvent::Reloaded { edits, disk_digest } => {
                self.edited(edits, None, meta);
                self.dirty = false;
                self.disk_digest = Some(disk_digest.clone());
                self.changed_on_disk = None;
            }
            DocumentEvent::DiskChanged { disk_digest } => {
                self.changed_on_disk = Some(disk_digest.clone());
            }
            DocumentEvent::Edited { edits } => self.edited(edits, None, meta),
            DocumentEvent::BurstEdited { edits, burst } => self.edited(edits, Some(burst), meta),
            DocumentEvent::Undone { .. } => {
                if let Some(step) = self.undo.pop() {
                    self.undo_bytes = self.undo_bytes.saturating_sub(step.bytes);
                    self.splice(&step.inverse);
                }
                self.version += 1;
                self.dirty = true;
                self.author(meta);
            }
            DocumentEvent::SaveIntended { version, target } => {
                self.pending_save = Some(PendingSave {
                    version: *version,
                    target: target.clone(),
                });
            }
            DocumentEvent::Saved {
                version,
                disk_digest,
            } => {
                self.pending_save = None;
                self.disk_digest = Some(disk_digest.clone());
                self.dirty = *version != self.version;
                self.changed_on_disk = None;
            }
            DocumentEvent::SaveAbandoned { .. } => self.pending_save = None,
            DocumentEvent::Closed => {
                self.open = false;
                self.text = String::new();
                self.len16 = 0;
                self.undo.clear();
                self.undo_bytes = 0;
                self.dirty = false;
            }
        }
    }

    fn decide(
        &self,
        command: &DocCommand,
        _ctx: &CommandContext,
    ) -> Result<Decision<DocumentEvent, DocReply>, ActorError> {
        let one = |event: DocumentEvent, reply: DocReply| {
            Ok(Decision {
                events: vec![event],
                reply,
            })
        };
        match command {
            DocCommand::Open {
                path,
                text,
                disk_digest,
            } => {
                if self.open {
                    return Ok(Decision {
                        events: Vec::new(),
                        reply: self.reply(),
                    });
                }
                let reply = self.next(
                    text::utf16_len(text),
                    text.len() as u64,
                    false,
                    disk_digest.clone(),
                );
                one(
                    DocumentEvent::Opened {
                        path: path.clone(),
                        text: text.clone(),
                        disk_digest: disk_digest.clone(),
                    },
                    reply,
                )
            }
            DocCommand::Edit {
                expected_version,
                edits,
                burst,
                max_bytes,
                max_undo_bytes,
            } => {
                self.check_version(*expected_version)?;
                if burst
                    .as_ref()
                    .is_some_and(|b| b.is_empty() || b.len() > MAX_BURST_ID)
                {
                    return Err(ActorError::invalid("burst", "a burst id has 1 to 64 bytes"));
                }
                if edits.is_empty() {
                    return Err(ActorError::invalid(
                        "edits",
                        "a transaction has at least one edit",
                    ));
                }
                let ranges = text::plan(&self.text, edits).map_err(edit_error)?;
                let bytes = text::to_bytes(edits, &ranges);
                let (mut new_len, mut len16, mut undo) =
                    (self.text.len() as i64, self.len16 as i64, 0u64);
                for e in &bytes {
                    let removed = &self.text[e.start as usize..e.end as usize];
                    new_len += e.text.len() as i64 - removed.len() as i64;
                    len16 += text::utf16_len(&e.text) as i64 - text::utf16_len(removed) as i64;
                    undo += removed.len() as u64 + 16;
                }
                if new_len as u64 > *max_bytes {
                    return Err(ActorError::Limit {
                        limit: "documents.maxBufferBytes".into(),
                        value: *max_bytes,
                    });
                }
                if self.undo_bytes + undo > *max_undo_bytes {
                    return Err(ActorError::Limit {
                        limit: "documents.maxUndoBytes".into(),
                        value: *max_undo_bytes,
                    });
                }
                let reply = self.next(len16 as u64, new_len as u64, true, self.disk_digest.clone());
                let event = match burst {
                    Some(b) => DocumentEvent::BurstEdited {
                        edits: bytes,
                        burst: b.clone(),
                    },
                    None => DocumentEvent::Edited { edits: bytes },
                };
                one(event, reply)
            }
            DocCommand::Undo { expected_version } => {
                self.check_version(*expected_version)?;
                let Some(step) = self.undo.last() else {
                    return Err(ActorError::invalid("documentId", "nothing to undo"));
                };
                let mut probe = self.text.clone();
                let (_, delta) = text::apply_bytes(&mut probe, &step.inverse)
                    .ok_or_else(|| ActorError::internal("an undo step does not fit its buffer"))?;
                let len16 = (self.len16 as i64 + delta).max(0) as u64;
                one(
                    DocumentEvent::Undone {
                        reverted: step.version,
                    },
                    self.next(len16, probe.len() as u64, true, self.disk_digest.clone()),
                )
            }
            DocCommand::SaveIntent {
                expected_version,
                base_digest,
                disk_now,
            } => {
                self.check_version(*expected_version)?;
                if self.pending_save.is_some() {
                    return Err(ActorError::conflict("a save of this buffer is in progress"));
                }
                let deliberate = base_digest.is_some() && base_digest == disk_now;
                if disk_now != &self.disk_digest && !deliberate {
                    return Err(ActorError::DiskChanged {
                        reason: format!(
                            "the file changed on disk since it was opened or last saved (buffer base {}, disk now {}); pass baseDigest with the disk digest to overwrite it",
                            self.disk_digest.as_deref().unwrap_or("none"),
                            disk_now.as_deref().unwrap_or("none (deleted)")
                        ),
                        base_digest: self.disk_digest.clone(),
                        disk_digest: disk_now.clone(),
                    });
                }
                let target = rho_plumbing::sha256_hex(self.text.as_bytes());
                Ok(Decision {
                    events: vec![DocumentEvent::SaveIntended {
                        version: self.version,
                        target: target.clone(),
                    }],
                    reply: DocReply {
                        disk_digest: Some(target),
                        ..self.reply()
                    },
                })
            }
            DocCommand::SaveDone {
                version,
                disk_digest,
            } => {
                let mut reply = self.reply();
                reply.disk_digest = Some(disk_digest.clone());
                reply.dirty = *version != self.version;
                reply.version = *version;
                one(
                    DocumentEvent::Saved {
                        version: *version,
                        disk_digest: disk_digest.clone(),
                    },
                    reply,
                )
            }
            DocCommand::SaveFailed { reason } => one(
                DocumentEvent::SaveAbandoned {
                    reason: reason.clone(),
                },
                self.reply(),
            ),
            DocCommand::Reload {
                expected_version,
                edits,
                disk_digest,
            } => {
                self.check_version(*expected_version)?;
                if self.dirty || self.pending_save.is_some() {
                    return Err(ActorError::conflict(
                        "the buffer has unsaved changes; it is not reloaded",
                    ));
                }
                let mut probe = self.text.clone();
                let (_, delta) = text::apply_bytes(&mut probe, edits)
                    .ok_or_else(|| ActorError::internal("a reload does not fit its buffer"))?;
                let len16 = (self.len16 as i64 + delta).max(0) as u64;
                one(
                    DocumentEvent::Reloaded {
                        edits: edits.clone(),
                        disk_digest: disk_digest.clone(),
                    },
                    self.next(len16, probe.len() as u64, false, Some(disk_digest.clone())),
                )
            }
            DocCommand::MarkDiskChanged { disk_digest } => {
                if !self.open || self.changed_on_disk.as_ref() == Some(disk_digest) {
                    return Ok(Decision {
                        events: Vec::new(),
                        reply: self.reply(),
                    });
                }
                one(
                    DocumentEvent::DiskChanged {
                        disk_digest: disk_digest.clone(),
                    },
                    self.reply(),
                )
            }
            DocCommand::Close => {
                if !self.open {
                    return Err(ActorError::NotFound {
                        what: "open document".into(),
                    });
                }
                if self.dirty || self.pending_save.is_some() {
                    return Err(ActorError::conflict(
                        "the buffer has unsaved changes; save it (or undo them) before closing",
                    ));
                }
                one(
                    DocumentEvent::Closed,
                    DocReply {
                        dirty: false,
                        ..self.reply()
                    },
                )
            }
        }
    }

    fn identities(&self) -> &IdentityTable<DocReply> {
        &self.identities
    }

    fn identities_mut(&mut self) -> &mut IdentityTable<DocReply> {
        &mut self.identities
    }
}
