//! Buffers follow their files when an Agent writes them with its own tools (issue 17): every
//! open buffer whose file's digest changed is reloaded when it is clean (one edit, attributed
//! to the Agent, announced as `document.changed` with kind `reload`), or marked changed on disk
//! when it has unsaved changes (the save's conflict path then decides).

use super::announce::Note;
use crate::child::Query;
use crate::documents::changes;
use crate::documents::entity::{DocCommand, DocReply, DocumentEntity};
use crate::documents::text::ByteEdit;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::owners::Owner;
use crate::project_actor::ProjectActor;
use crate::Principal;
use actix::prelude::*;
use std::path::PathBuf;
use uuid::Uuid;

/// Reload every open buffer whose file changed on disk, as `principal`'s edit.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), ActorError>")]
pub struct ReloadBuffers {
    pub principal: Principal,
}

/// What a file holds now: its digest and its text (`None`: not UTF-8 or over the buffer
/// bound, so only marked); `None` when the file is gone.
type Disk = Option<(String, Option<String>)>;

/// One buffer's reload.
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(), ActorError>")]
pub struct ReloadDocument {
    pub id: Uuid,
    pub disk: Disk,
    pub principal: Principal,
}

fn read_disk(dir: &std::path::Path, path: &str, max: u64) -> Disk {
    let file = crate::paths::resolve_existing(dir, "path", path).ok()?;
    let bytes = std::fs::read(file).ok()?;
    let digest = rho_plumbing::sha256_hex(&bytes);
    let text = (bytes.len() as u64 <= max)
        .then(|| String::from_utf8(bytes).ok())
        .flatten();
    Some((digest, text))
}

/// The one edit that turns `old` into `new` (common prefix and suffix kept, on char boundaries).
pub fn diff(old: &str, new: &str) -> Vec<ByteEdit> {
    let mut start = old
        .bytes()
        .zip(new.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(start) || !new.is_char_boundary(start) {
        start -= 1;
    }
    let max_tail = (old.len() - start).min(new.len() - start);
    let mut tail = old
        .bytes()
        .rev()
        .zip(new.bytes().rev())
        .take(max_tail)
        .take_while(|(a, b)| a == b)
        .count();
    while !old.is_char_boundary(old.len() - tail) || !new.is_char_boundary(new.len() - tail) {
        tail -= 1;
    }
    if old.len() == new.len() && start == old.len() {
        return Vec::new();
    }
    vec![ByteEdit {
        start: start as u64,
        end: (old.len() - tail) as u64,
        text: new[start..new.len() - tail].to_string(),
    }]
}

impl Handler<ReloadBuffers> for ProjectActor {
    type Result = ResponseFuture<Result<(), ActorError>>;

    fn handle(&mut self, msg: ReloadBuffers, ctx: &mut Context<Self>) -> Self::Result {
        if !self.config().selection.is_available(Owner::Documents) {
            return Box::pin(async { Ok(()) });
        }
        let open = self.owned.docs.open_facts();
        let dir: PathBuf = self.dir().to_path_buf();
        let max = self.config_limits().documents.max_buffer_bytes;
        let me = ctx.address();
        Box::pin(async move {
            let changed = tokio::task::spawn_blocking(move || {
                open.into_iter()
                    .filter_map(|(id, path, digest)| {
                        let disk = read_disk(&dir, &path, max);
                        let now = disk.as_ref().map(|(d, _)| d.clone());
                        (now != digest).then_some((id, disk))
                    })
                    .collect::<Vec<_>>()
            })
            .await
            .map_err(|e| ActorError::internal(e.to_string()))?;
            for (id, disk) in changed {
                let principal = msg.principal.clone();
                let reload = ReloadDocument {
                    id,
                    disk,
                    principal,
                };
                match me.send(reload).await {
                    Ok(Ok(())) | Ok(Err(ActorError::Stale { .. })) => {}
                    Ok(Err(ActorError::Conflict { .. })) => {}
                    Ok(Err(e)) => return Err(e),
                    Err(e) => return Err(ActorError::internal(e.to_string())),
                }
            }
            Ok(())
        })
    }
}

impl Handler<ReloadDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(), ActorError>>;

    fn handle(&mut self, msg: ReloadDocument, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let read = Box::new(|d: &DocumentEntity| {
            (
                d.open,
                d.version,
                d.dirty || d.pending_save.is_some(),
                d.disk_digest.clone(),
                d.text.clone(),
            )
        });
        let bound = self.config_limits().max_event_bytes / 2;
        let facts = self.dispatch(child.clone(), Query::<DocumentEntity, _> { read }, false);
        Box::pin(
            facts.then(move |facts, act, _| -> ResponseActFuture<Self, _> {
                let (open, version, dirty, digest, text) = match facts {
                    Ok(f) => f,
                    Err(e) => return Box::pin(fut::ready(Err(e))),
                };
                let now = msg.disk.as_ref().map(|(d, _)| d.clone());
                if !open || now == digest {
                    return Box::pin(fut::ready(Ok(())));
                }
                let ctx = CommandContext::now(msg.principal.clone());
                let author = msg.principal.to_string();
                let (command, note) = match msg.disk {
                    Some((disk_digest, Some(new))) if !dirty => {
                        let edits = diff(&text, &new);
                        let shown = changes::to_utf16(&text, &edits)
                            .and_then(|e| changes::bounded(e, bound));
                        let note = Note {
                            kind: "reload",
                            base_version: version,
                            change_id: None,
                            edits: shown,
                        };
                        let command = DocCommand::Reload {
                            expected_version: version,
                            edits,
                            disk_digest,
                        };
                        (command, Some(note))
                    }
                    disk => (
                        DocCommand::MarkDiskChanged {
                            disk_digest: disk.map(|(d, _)| d),
                        },
                        None,
                    ),
                };
                let id = msg.id;
                let execute = crate::child::Execute::<DocumentEntity> { command, ctx };
                Box::pin(act.dispatch(child, execute, true).map(move |res, act, _| {
                    let reply: DocReply = res?;
                    let path = act.owned.docs.path_of(id).unwrap_or_default();
                    act.owned.docs.set_open(id, &path, &reply);
                    let note = note.unwrap_or(Note {
                        kind: "disk-changed",
                        base_version: reply.version,
                        change_id: None,
                        edits: Some(Vec::new()),
                    });
                    act.announce_doc(id, &reply, &author, note);
                    Ok(())
                }))
            }),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(old: &str, edits: &[ByteEdit]) -> String {
        let mut t = old.to_string();
        crate::documents::text::apply_bytes(&mut t, edits).unwrap();
        t
    }

    #[test]
    fn one_edit_turns_the_buffer_into_the_file() {
        for (old, new) in [
            ("hello world\n", "hello brave world\n"),
            ("abc", "abc"),
            ("", "new"),
            ("gone", ""),
            ("é1é", "é2é"),
            ("aaaa", "aa"),
            ("x😀y", "x😁y"),
        ] {
            let edits = diff(old, new);
            assert_eq!(apply(old, &edits), new, "{old:?} -> {new:?}");
            assert!(edits.len() <= 1);
        }
        assert!(diff("same", "same").is_empty());
        assert_eq!(
            diff("hello world", "hello brave world"),
            vec![ByteEdit {
                start: 6,
                end: 6,
                text: "brave ".into()
            }]
        );
    }
}
