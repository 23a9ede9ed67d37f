//! The project actor's document operations: each validates against the project (limits, paths), then runs the buffer's command.

use super::entity::{DocCommand, DocReply, DocumentEntity};
use super::files;
use super::text::{self, Edit};
use crate::child::{EntityActor, Execute, Query};
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use serde::Serialize;
use uuid::Uuid;

/// A document as `document.open` answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OpenedDoc {
    pub id: Uuid,
    pub path: String,
    pub reply: DocReply,
}

impl ProjectActor {
    fn doc(&mut self, id: Uuid) -> Result<Addr<EntityActor<DocumentEntity>>, ActorError> {
        self.docs.touch(id);
        self.children()
            .get::<DocumentEntity>(id)
            .ok_or_else(|| ActorError::NotFound {
                what: "document".into(),
            })
    }

    /// If buffer `id` was evicted: rebuilds it from the journal, then re-sends `msg` to this
    /// actor (requests for it meanwhile wait for the same rebuild). `None` if it is resident.
    fn after_restore<M, V>(
        &mut self,
        id: Uuid,
        msg: M,
        ctx: &mut Context<Self>,
    ) -> Result<Step<V>, M>
    where
        M: Message<Result = Result<V, ActorError>> + Send + 'static,
        V: Send + 'static,
        Self: Handler<M>,
    {
        if !self.docs.is_evicted(id) || self.children().get::<DocumentEntity>(id).is_some() {
            return Err(msg);
        }
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.docs.wait_restore(id, tx) {
            let journal = self.journal().clone();
            let work = async move {
                tokio::task::spawn_blocking(move || {
                    crate::replay::replay_entity::<DocumentEntity>(&journal, id, |s| {
                        s.documents.remove(&id)
                    })
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))?
                .map_err(|e| ActorError::internal(e.to_string()))
            };
            ctx.spawn(work.into_actor(self).map(move |res, act, _| {
                let outcome = res.map(|state| drop(act.children().insert(id, state)));
                tracing::debug!(document = %id, ok = outcome.is_ok(), "evicted buffer rebuilt from the journal");
                act.docs.restored(id, outcome);
            }));
        }
        let me = ctx.address();
        Ok(Box::pin(
            async move {
                rx.await
                    .unwrap_or_else(|_| Err(ActorError::internal("restore abandoned")))?;
                me.send(msg)
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))?
            }
            .into_actor(self),
        ))
    }

    /// The buffer's resident actor, with `msg` handed back; otherwise the step that answers:
    /// an evicted buffer is rebuilt and `msg` re-sent, an unknown one is `not_found`.
    fn resident<M, V>(
        &mut self,
        id: Uuid,
        msg: M,
        ctx: &mut Context<Self>,
    ) -> Result<(M, Addr<EntityActor<DocumentEntity>>), Step<V>>
    where
        M: Message<Result = Result<V, ActorError>> + Send + 'static,
        V: Send + 'static,
        Self: Handler<M>,
    {
        match self.after_restore(id, msg, ctx) {
            Ok(step) => Err(step),
            Err(msg) => match self.doc(id) {
                Ok(child) => Ok((msg, child)),
                Err(e) => Err(Box::pin(fut::ready(Err(e)))),
            },
        }
    }

    /// Moves buffers unused for `idle` out of memory (without closing them).
    pub(crate) fn evict_idle_documents(&mut self, idle: std::time::Duration) {
        for id in self.docs.idle(idle) {
            self.children().remove::<DocumentEntity>(id);
            self.docs.mark_evicted(id);
            tracing::debug!(document = %id, "idle buffer left memory; the journal keeps it");
        }
    }

    /// Announces a buffer change once it is durable.
    fn announce_doc(&self, id: Uuid, reply: &DocReply, author: &str) {
        if let Some(bus) = self.events() {
            bus.publish(
                "document.changed",
                Some(self.project_id()),
                serde_json::json!({"documentId": id, "version": reply.version, "author": author, "dirty": reply.dirty}),
            );
        }
    }
}

/// `document.open`: one logical buffer per file.
pub struct OpenDocument {
    pub path: String,
    pub create: bool,
    pub ctx: CommandContext,
}

impl Message for OpenDocument {
    type Result = Result<OpenedDoc, ActorError>;
}

impl Handler<OpenDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<OpenedDoc, ActorError>>;

    fn handle(&mut self, msg: OpenDocument, ctx: &mut Context<Self>) -> Self::Result {
        let limits = self.config_limits().documents.clone();
        let target = files::target(self.dir(), &msg.path);
        let (path, file) = match target {
            Ok(t) => t,
            Err(e) => return Box::pin(fut::ready(Err(e))),
        };
        let id = self.docs.id_for(&path);
        let path2 = path.clone();
        if !self.docs.is_open(id) && self.docs.open_count() as u64 >= limits.max_buffers {
            return Box::pin(fut::ready(Err(ActorError::Limit {
                limit: "documents.maxBuffers".into(),
                value: limits.max_buffers,
            })));
        }
        let budget = limits
            .max_total_bytes
            .saturating_sub(self.docs.others_bytes(id));
        let msg = match self.after_restore(id, msg, ctx) {
            Ok(step) => return step,
            Err(msg) => msg,
        };
        let child = self.children().get_or_new::<DocumentEntity>(id);
        let probe = child.clone();
        let read = async move {
            let current = probe
                .send(Query::<DocumentEntity, Option<DocReply>> {
                    read: Box::new(|d| d.open.then(|| d.reply())),
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??
                .reply;
            if let Some(reply) = current {
                return Ok(Err(reply));
            }
            let max = limits.max_buffer_bytes;
            let loaded = tokio::task::spawn_blocking(move || files::read(&file, max))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            match (loaded, msg.create) {
                (Some((text, digest)), _) => Ok(Ok((text, Some(digest)))),
                (None, true) => Ok(Ok((String::new(), None))),
                (None, false) => Err(ActorError::NotFound {
                    what: format!("file {path:?} (pass create: true to start a new one)"),
                }),
            }
        };
        Box::pin(read.into_actor(self).then(
            move |res,
                  act,
                  _|
                  -> Pin<
                Box<dyn ActorFuture<ProjectActor, Output = Result<OpenedDoc, ActorError>>>,
            > {
                let path = path2;
                match res {
                    Err(e) => Box::pin(fut::ready(Err(e))),
                    Ok(Err(reply)) => Box::pin(fut::ready(Ok(OpenedDoc { id, path, reply }))),
                    Ok(Ok((text, digest))) => {
                        if text.len() as u64 > budget {
                            return Box::pin(fut::ready(Err(ActorError::Limit {
                                limit: "documents.maxTotalBytes".into(),
                                value: limits.max_total_bytes,
                            })));
                        }
                        let author = msg.ctx.principal.to_string();
                        let command = DocCommand::Open {
                            path: path.clone(),
                            text,
                            disk_digest: digest,
                        };
                        Box::pin(
                            act.dispatch(
                                child,
                                Execute::<DocumentEntity> {
                                    command,
                                    ctx: msg.ctx,
                                },
                                true,
                            )
                            .map(move |res, act, _| {
                                let reply = res?;
                                act.docs.set_open(id, &path, &reply);
                                act.announce_doc(id, &reply, &author);
                                Ok(OpenedDoc { id, path, reply })
                            }),
                        )
                    }
                }
            },
        ))
    }
}

use std::pin::Pin;

/// A buffer's text (or a UTF-16 range of it) with its facts.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocRead {
    pub version: u64,
    pub text: String,
    pub dirty: bool,
    pub disk_digest: Option<String>,
    pub path: String,
    pub authors: Vec<super::entity::Author>,
    pub length: u64,
}

/// `document.read`.
pub struct ReadDocument {
    pub id: Uuid,
    pub range: Option<(u64, u64)>,
    /// Pin the read to this version (`stale` if the buffer moved on).
    pub version: Option<u64>,
}

impl Message for ReadDocument {
    type Result = Result<DocRead, ActorError>;
}

impl Handler<ReadDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocRead, ActorError>>;

    fn handle(&mut self, msg: ReadDocument, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let max = self.config_limits().max_log_page_bytes;
        let read = Box::new(move |d: &DocumentEntity| -> Result<DocRead, ActorError> {
            if !d.open {
                return Err(ActorError::NotFound {
                    what: "open document".into(),
                });
            }
            if msg.version.is_some_and(|v| v != d.version) {
                return Err(ActorError::Stale {
                    current_version: d.version,
                });
            }
            let length = d.len16;
            let (start, end) = msg.range.unwrap_or((0, length));
            let slice = text::slice(&d.text, start, end).ok_or_else(|| {
                ActorError::invalid(
                    "range",
                    "the range is out of bounds, reversed, or splits a surrogate pair",
                )
            })?;
            if slice.len() as u64 > max {
                return Err(ActorError::Limit {
                    limit: "maxLogPageBytes".into(),
                    value: max,
                });
            }
            Ok(DocRead {
                version: d.version,
                text: slice.to_string(),
                dirty: d.dirty,
                disk_digest: d.disk_digest.clone(),
                path: d.path.clone(),
                authors: d.authors.iter().cloned().collect(),
                length,
            })
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<DocumentEntity, Result<DocRead, ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}

/// `document.edit` and `document.undo` and `document.close`: one buffer command with its identity.
pub struct DocWrite {
    pub id: Uuid,
    pub op: DocWriteOp,
    pub ctx: CommandContext,
}

/// The buffer commands that go through [`DocWrite`].
pub enum DocWriteOp {
    Edit {
        expected_version: u64,
        edits: Vec<Edit>,
    },
    Undo {
        expected_version: u64,
    },
    Close,
}

impl Message for DocWrite {
    type Result = Result<DocReply, ActorError>;
}

impl Handler<DocWrite> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocReply, ActorError>>;

    fn handle(&mut self, msg: DocWrite, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let limits = self.config_limits().documents.clone();
        let id = msg.id;
        let mut reserved = 0;
        let command = match msg.op {
            DocWriteOp::Edit {
                expected_version,
                edits,
            } => {
                reserved = edits.iter().map(|e| e.text.len() as u64).sum();
                let budget = limits
                    .max_total_bytes
                    .saturating_sub(self.docs.others_bytes(id));
                self.docs.reserve(reserved);
                DocCommand::Edit {
                    expected_version,
                    edits,
                    max_bytes: limits.max_buffer_bytes.min(budget),
                    max_undo_bytes: limits.max_undo_bytes,
                }
            }
            DocWriteOp::Undo { expected_version } => DocCommand::Undo { expected_version },
            DocWriteOp::Close => DocCommand::Close,
        };
        let closing = matches!(command, DocCommand::Close);
        let author = msg.ctx.principal.to_string();
        Box::pin(
            self.dispatch(
                child,
                Execute::<DocumentEntity> {
                    command,
                    ctx: msg.ctx,
                },
                true,
            )
            .map(move |res, act, _| {
                act.docs.release(reserved);
                let reply = res?;
                if closing {
                    let path = act.docs.path_of(id).unwrap_or_default();
                    act.docs.set_closed(id, &path, &reply);
                } else {
                    let path = act.docs.path_of(id).unwrap_or_default();
                    act.docs.set_open(id, &path, &reply);
                }
                act.announce_doc(id, &reply, &author);
                Ok(reply)
            }),
        )
    }
}

/// `document.save`: intent journaled, file replaced atomically, saved digest journaled.
pub struct SaveDocument {
    pub id: Uuid,
    pub expected_version: u64,
    pub base_digest: Option<String>,
    pub ctx: CommandContext,
}

impl Message for SaveDocument {
    type Result = Result<DocReply, ActorError>;
}

type Step<T> = Pin<Box<dyn ActorFuture<ProjectActor, Output = Result<T, ActorError>>>>;

impl Handler<SaveDocument> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<DocReply, ActorError>>;

    fn handle(&mut self, msg: SaveDocument, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let id = msg.id;
        let dir = self.dir().to_path_buf();
        // Identity first: a retried save returns its original reply.
        let identity = msg.ctx.identity.clone();
        let probe = child.clone();
        let facts = async move {
            let known = probe
                .send(Query::<DocumentEntity, _> {
                    read: Box::new(move |d: &DocumentEntity| {
                        let retried = identity
                            .as_ref()
                            .map(|(cid, dg)| crate::entity::Entity::identities(d).check(cid, dg));
                        (retried, d.path.clone(), d.text.clone())
                    }),
                })
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??
                .reply;
            let (retried, path, text) = known;
            if let Some(r) = retried {
                if let Some(reply) = r? {
                    return Ok(Err(reply));
                }
            }
            let (_, file) = files::target(&dir, &path)?;
            let f2 = file.clone();
            let disk_now = tokio::task::spawn_blocking(move || files::disk_digest(&f2))
                .await
                .map_err(|e| ActorError::internal(e.to_string()))??;
            Ok(Ok((file, text, disk_now)))
        };
        let ctx = msg.ctx;
        Box::pin(
            facts
                .into_actor(self)
                .then(move |res, act, _| -> Step<DocReply> {
                    let (file, text, disk_now) = match res {
                        Err(e) => return Box::pin(fut::ready(Err(e))),
                        Ok(Err(original)) => return Box::pin(fut::ready(Ok(original))),
                        Ok(Ok(f)) => f,
                    };
                    let intent_ctx = CommandContext {
                        identity: None,
                        ..ctx.clone()
                    };
                    let command = DocCommand::SaveIntent {
                        expected_version: msg.expected_version,
                        base_digest: msg.base_digest,
                        disk_now: disk_now.clone(),
                    };
                    Box::pin(
                        act.dispatch(
                            child.clone(),
                            Execute::<DocumentEntity> {
                                command,
                                ctx: intent_ctx,
                            },
                            true,
                        )
                        .then(move |res, act, _| -> Step<DocReply> {
                            let intent = match res {
                                Ok(r) => r,
                                Err(e) => return Box::pin(fut::ready(Err(e))),
                            };
                            let write = async move {
                                tokio::task::spawn_blocking(move || {
                                    files::replace(&file, &text, &disk_now)
                                })
                                .await
                                .unwrap_or_else(|e| Err(ActorError::internal(e.to_string())))
                            };
                            Box::pin(write.into_actor(act).then(
                                move |written, act, _| -> Step<DocReply> {
                                    match written {
                                        Ok(digest) => {
                                            let author = ctx.principal.to_string();
                                            let command = DocCommand::SaveDone {
                                                version: intent.version,
                                                disk_digest: digest,
                                            };
                                            Box::pin(
                                                act.dispatch(
                                                    child,
                                                    Execute::<DocumentEntity> { command, ctx },
                                                    true,
                                                )
                                                .map(move |res, act, _| {
                                                    let reply = res?;
                                                    act.announce_doc(id, &reply, &author);
                                                    Ok(reply)
                                                }),
                                            )
                                        }
                                        Err(e) => {
                                            let failed = CommandContext {
                                                identity: None,
                                                ..ctx
                                            };
                                            let command = DocCommand::SaveFailed {
                                                reason: e.to_string(),
                                            };
                                            Box::pin(
                                                act.dispatch(
                                                    child,
                                                    Execute::<DocumentEntity> {
                                                        command,
                                                        ctx: failed,
                                                    },
                                                    true,
                                                )
                                                .map(move |_, _, _| Err(e)),
                                            )
                                        }
                                    }
                                },
                            ))
                        }),
                    )
                }),
        )
    }
}

/// The internal port managed runs use: the text of one buffer version, or `stale`.
pub struct BufferText {
    pub id: Uuid,
    pub version: u64,
}

impl Message for BufferText {
    type Result = Result<(String, String), ActorError>;
}

impl Handler<BufferText> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<(String, String), ActorError>>;

    fn handle(&mut self, msg: BufferText, ctx: &mut Context<Self>) -> Self::Result {
        let (msg, child) = match self.resident(msg.id, msg, ctx) {
            Ok(found) => found,
            Err(step) => return step,
        };
        let read = Box::new(move |d: &DocumentEntity| {
            if !d.open || d.version != msg.version {
                return Err(ActorError::Stale {
                    current_version: d.version,
                });
            }
            Ok((d.path.clone(), d.text.clone()))
        });
        Box::pin(
            self.dispatch(
                child,
                Query::<DocumentEntity, Result<(String, String), ActorError>> { read },
                false,
            )
            .map(|r, _, _| r?),
        )
    }
}

/// Buffer-vs-disk facts of every buffer, for `observation.snapshot`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DocFacts {
    pub id: Uuid,
    pub path: String,
    pub version: u64,
    pub open: bool,
    pub dirty: bool,
    pub disk_digest: Option<String>,
    pub length: u64,
}

/// Facts of every document of the project.
pub struct ListDocuments;

impl Message for ListDocuments {
    type Result = Result<Vec<DocFacts>, ActorError>;
}

impl Handler<ListDocuments> for ProjectActor {
    type Result = ResponseFuture<Result<Vec<DocFacts>, ActorError>>;

    fn handle(&mut self, _: ListDocuments, _: &mut Context<Self>) -> Self::Result {
        let children = self.children().all::<DocumentEntity>();
        let evicted = self.docs.evicted_facts();
        let journal = self.journal().clone();
        Box::pin(async move {
            let mut out = Vec::new();
            for (id, addr) in children {
                let facts = addr
                    .send(Query::<DocumentEntity, _> {
                        read: Box::new(move |d: &DocumentEntity| DocFacts {
                            id,
                            path: d.path.clone(),
                            version: d.version,
                            open: d.open,
                            dirty: d.dirty,
                            disk_digest: d.disk_digest.clone(),
                            length: d.len16,
                        }),
                    })
                    .await
                    .map_err(|e| ActorError::internal(e.to_string()))??
                    .reply;
                if facts.version > 0 {
                    out.push(facts);
                }
            }
            out.extend(evicted.into_iter().map(|(id, path, r)| DocFacts {
                id,
                path,
                version: r.version,
                open: true,
                dirty: r.dirty,
                disk_digest: r.disk_digest,
                length: r.length,
            }));
            crate::durable::durable(&journal, journal.last_assigned_seq()).await?;
            out.sort_by(|a, b| a.path.cmp(&b.path));
            Ok(out)
        })
    }
}
