//! The document buffer entity: state, fold and decisions (identity first, then version).

use super::events::DocumentEvent;
use super::text::{self, Edit, EditError};
use crate::entity::{CommandContext, Decision, Entity, EventMeta};
use crate::error::ActorError;
use crate::identity::IdentityTable;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

/// Authors remembered per buffer.
const AUTHORS: usize = 10;

/// One undoable transaction: the edits that revert it, in the coordinates of the text right after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UndoStep {
    pub version: u64,
    pub inverse: Vec<Edit>,
    pub bytes: u64,
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
            length: text::utf16_len(&self.text),
            disk_digest: self.disk_digest.clone(),
            dirty: self.dirty,
            bytes: self.text.len() as u64,
        }
    }

    fn next(&self, text: &str, dirty: bool, disk: Option<String>) -> DocReply {
        DocReply {
            version: self.version + 1,
            length: text::utf16_len(text),
            disk_digest: disk,
            dirty,
            bytes: text.len() as u64,
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

    fn author(&mut self, meta: &EventMeta) {
        self.authors.push_back(Author {
            version: self.version,
            principal: meta.principal.clone(),
            time_ms: meta.time_ms,
        });
        while self.authors.len() > AUTHORS {
            self.authors.pop_front();
        }
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
                self.disk_digest = disk_digest.clone();
                self.open = true;
                self.dirty = false;
                self.author(meta);
            }
            DocumentEvent::Edited { edits } => {
                // Decisions validated these edits against this very text; a plan failure here
                // would be a bug, and the fold then leaves the text unchanged rather than panic.
                if let Ok(ranges) = text::plan(&self.text, edits) {
                    let (new, removed) = text::apply(&self.text, edits, &ranges);
                    let inverse = text::inverse(edits, &ranges, &removed);
                    let bytes = removed.iter().map(|r| r.len() as u64).sum::<u64>()
                        + 16 * inverse.len() as u64;
                    self.text = new;
                    self.version += 1;
                    self.undo.push(UndoStep {
                        version: self.version,
                        inverse,
                        bytes,
                    });
                    self.undo_bytes += bytes;
                }
                self.dirty = true;
                self.author(meta);
            }
            DocumentEvent::Undone { .. } => {
                if let Some(step) = self.undo.pop() {
                    self.undo_bytes = self.undo_bytes.saturating_sub(step.bytes);
                    if let Ok(ranges) = text::plan(&self.text, &step.inverse) {
                        self.text = text::apply(&self.text, &step.inverse, &ranges).0;
                    }
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
            }
            DocumentEvent::SaveAbandoned { .. } => self.pending_save = None,
            DocumentEvent::Closed => {
                self.open = false;
                self.text = String::new();
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
                one(
                    DocumentEvent::Opened {
                        path: path.clone(),
                        text: text.clone(),
                        disk_digest: disk_digest.clone(),
                    },
                    self.next(text, false, disk_digest.clone()),
                )
            }
            DocCommand::Edit {
                expected_version,
                edits,
                max_bytes,
                max_undo_bytes,
            } => {
                self.check_version(*expected_version)?;
                if edits.is_empty() {
                    return Err(ActorError::invalid(
                        "edits",
                        "a transaction has at least one edit",
                    ));
                }
                let ranges = text::plan(&self.text, edits).map_err(edit_error)?;
                let (new, removed) = text::apply(&self.text, edits, &ranges);
                if new.len() as u64 > *max_bytes {
                    return Err(ActorError::Limit {
                        limit: "documents.maxBufferBytes".into(),
                        value: *max_bytes,
                    });
                }
                let undo: u64 =
                    removed.iter().map(|r| r.len() as u64).sum::<u64>() + 16 * edits.len() as u64;
                if self.undo_bytes + undo > *max_undo_bytes {
                    return Err(ActorError::Limit {
                        limit: "documents.maxUndoBytes".into(),
                        value: *max_undo_bytes,
                    });
                }
                one(
                    DocumentEvent::Edited {
                        edits: edits.clone(),
                    },
                    self.next(&new, true, self.disk_digest.clone()),
                )
            }
            DocCommand::Undo { expected_version } => {
                self.check_version(*expected_version)?;
                let Some(step) = self.undo.last() else {
                    return Err(ActorError::invalid("documentId", "nothing to undo"));
                };
                let ranges = text::plan(&self.text, &step.inverse).map_err(edit_error)?;
                let new = text::apply(&self.text, &step.inverse, &ranges).0;
                one(
                    DocumentEvent::Undone {
                        reverted: step.version,
                    },
                    self.next(&new, true, self.disk_digest.clone()),
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
                    return Err(ActorError::Conflict {
                        reason: format!(
                            "the file changed on disk since it was opened or last saved (buffer base {}, disk now {}); pass baseDigest with the disk digest to overwrite it",
                            self.disk_digest.as_deref().unwrap_or("none"),
                            disk_now.as_deref().unwrap_or("none (deleted)")
                        ),
                        existing_id: None,
                    });
                }
                let target = crate::state::hex(&<sha2::Sha256 as sha2::Digest>::digest(
                    self.text.as_bytes(),
                ));
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
