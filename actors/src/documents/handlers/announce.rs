//! The `document.changed` announcement of a durable buffer change, with what it changed.

use crate::documents::DocReply;
use crate::project_actor::ProjectActor;
use uuid::Uuid;

/// What a `document.changed` says beyond the buffer's facts: the change's kind, the version its
/// edits apply to, its caller identity and its UTF-16 edits (`None`: over the bound, read the text).
pub(super) struct Note {
    pub kind: &'static str,
    pub base_version: u64,
    pub change_id: Option<String>,
    pub edits: Option<Vec<crate::documents::text::Edit>>,
}

impl ProjectActor {
    /// Announces a buffer change once it is durable, with what it changed (`note`).
    pub(super) fn announce_doc(&self, id: Uuid, reply: &DocReply, author: &str, note: Note) {
        if let Some(bus) = self.events() {
            let edits = note.edits.map(|edits| {
                edits
                    .into_iter()
                    .map(|e| serde_json::json!({"start": e.start, "end": e.end, "text": e.text}))
                    .collect::<Vec<_>>()
            });
            bus.publish(
                "document.changed",
                Some(self.project_id()),
                serde_json::json!({
                    "documentId": id,
                    "version": reply.version,
                    "author": author,
                    "dirty": reply.dirty,
                    "changeId": note.change_id,
                    "kind": note.kind,
                    "baseVersion": note.base_version,
                    "edits": edits,
                }),
            );
        }
    }
}
