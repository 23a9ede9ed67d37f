//! The project actor's messages of owner Files: register, capture, list, read, and loading one version's bytes for other owners.

use super::decl::{MediaDecl, TableDecl};
use super::entity::{PutBounds, ResourceRecord, ResourcesCommand, ResourcesEntity};
use super::events::VersionFacts;
use super::stream::{stream_unless_cached, Source};
use super::{store, FilesError};
use crate::child::{Execute, Query};
use crate::durable::durable;
use crate::entity::CommandContext;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use std::future::Future;
use std::path::{Path, PathBuf};
use uuid::Uuid;

/// Reads the resources entity; resolves once what it observed is durable.
pub(crate) fn read_resources<R: Send + 'static>(
    act: &mut ProjectActor,
    read: impl FnOnce(&ResourcesEntity) -> R + Send + 'static,
) -> impl Future<Output = Result<R, ActorError>> {
    let admitted = act.admit_read();
    let id = act.journal().project_id();
    let child = act.children().get_or_new::<ResourcesEntity>(id);
    let journal = act.journal().clone();
    async move {
        admitted?;
        let accepted = child
            .send(Query::<ResourcesEntity, R> {
                read: Box::new(read),
            })
            .await
            .map_err(|e| ActorError::internal(format!("resources mailbox: {e}")))??;
        durable(&journal, accepted.wait_seq).await?;
        Ok(accepted.reply)
    }
}

/// Runs blocking file work off the actor's thread.
pub(crate) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, FilesError> + Send + 'static,
) -> Result<T, FilesError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| FilesError::Actor(ActorError::internal(e.to_string())))?
}

/// The normalized project-relative form of a path (`a/b`), refusing what CONVENTIONS refuses.
pub fn normalize(field: &str, rel: &str) -> Result<String, ActorError> {
    let parts = crate::paths::components(field, rel)?;
    if parts.is_empty() {
        return Err(ActorError::invalid(
            field,
            "name a file, not the project folder",
        ));
    }
    Ok(parts.join("/"))
}

/// `resource.register` / `resource.capture` as the actor receives them.
#[derive(Debug, Clone)]
pub struct PutResource {
    pub path: String,
    /// `None` for a capture: the declaration of the latest version (or `file`) is kept.
    pub declared: Option<Declared>,
    pub capture: bool,
    pub max_file_bytes: u64,
    pub bounds: PutBounds,
    pub ctx: CommandContext,
    /// Provenance: the managed run that produced the bytes (registration at run end).
    pub operation_id: Option<String>,
}

/// What `resource.register` declares about the bytes.
#[derive(Debug, Clone)]
pub struct Declared {
    pub kind: String,
    pub format: String,
    pub partial: bool,
    pub table: Option<TableDecl>,
    pub media: Option<MediaDecl>,
}

impl Message for PutResource {
    type Result = Result<ResourceRecord, FilesError>;
}

enum Step {
    Done(ResourceRecord),
    Put(String, VersionFacts),
}

impl Handler<PutResource> for ProjectActor {
    type Result = ResponseActFuture<Self, Result<ResourceRecord, FilesError>>;

    fn handle(&mut self, msg: PutResource, _: &mut Context<Self>) -> Self::Result {
        let path = match normalize("path", &msg.path) {
            Ok(p) => p,
            Err(e) => return Box::pin(fut::ready(Err(e.into()))),
        };
        let identity = msg.ctx.identity.clone();
        let key = path.clone();
        let first = read_resources(self, move |r| {
            r.retry(&identity).map(|done| (done, r.latest_at(&key)))
        });
        let dir: PathBuf = self.dir().to_path_buf();
        let (declared, capture, max) = (msg.declared.clone(), msg.capture, msg.max_file_bytes);
        let operation_id = msg.operation_id.clone();
        let gate = self.gate(&msg.ctx);
        let verified = self.service_state().verified.clone();
        let work = async move {
            let (done, latest) = first.await??;
            if let Some(rec) = done {
                return Ok(Step::Done(rec));
            }
            gate?;
            let facts = blocking(move || {
                let file = crate::paths::resolve_existing(&dir, "path", &path)?;
                let started = std::time::SystemTime::now();
                let before = super::verified::stamp(&file);
                let bytes = store::read_bounded(&file, max)?;
                let sha256 = rho_plumbing::sha256_hex(&bytes);
                // The first read of this version need not hash the file again while it keeps
                // this stamp (a stamp that changed during the read is never matched).
                if let Some(b) = before.filter(|b| b.len == bytes.len() as u64) {
                    verified.note(file.clone(), b, started, &sha256);
                }
                if capture {
                    store::store(&dir, &bytes, &sha256)?;
                }
                let d = declared.unwrap_or_else(|| match latest {
                    Some(l) => Declared {
                        kind: l.facts.kind,
                        format: l.facts.format,
                        partial: l.facts.partial,
                        table: l.facts.table,
                        media: l.facts.media,
                    },
                    None => Declared {
                        kind: "file".into(),
                        format: path
                            .rsplit_once('.')
                            .map_or("bytes", |(_, e)| e)
                            .to_ascii_lowercase(),
                        partial: false,
                        table: None,
                        media: None,
                    },
                });
                Ok((
                    path,
                    VersionFacts {
                        kind: d.kind,
                        format: d.format,
                        bytes: bytes.len() as u64,
                        sha256,
                        captured: capture,
                        partial: d.partial,
                        operation_id,
                        table: d.table,
                        media: d.media,
                    },
                ))
            })
            .await?;
            Ok::<_, FilesError>(Step::Put(facts.0, facts.1))
        };
        let (ctx, bounds) = (msg.ctx, msg.bounds);
        Box::pin(work.into_actor(self).then(move |res, act, _| -> ResponseActFuture<Self, _> {
            match res {
                Err(e) => Box::pin(fut::ready(Err(e))),
                Ok(Step::Done(rec)) => Box::pin(fut::ready(Ok(rec))),
                Ok(Step::Put(path, facts)) => {
                    let id = act.journal().project_id();
                    let child = act.children().get_or_new::<ResourcesEntity>(id);
                    let command = ResourcesCommand::Put {
                        new_id: Uuid::new_v4(),
                        path,
                        facts,
                        bounds,
                    };
                    Box::pin(act.dispatch(child, Execute::<ResourcesEntity> { command, ctx }, true).map(
                        |res, act, _| {
                            if let (Ok(rec), Some(bus)) = (&res, act.events()) {
                                bus.publish(
                                    "resource.changed",
                                    Some(act.journal().project_id()),
                                    serde_json::json!({"resourceId": rec.id.to_string(), "version": rec.version, "path": rec.path}),
                                );
                            }
                            res.map_err(FilesError::from)
                        },
                    ))
                }
            }
        }))
    }
}

/// `resource.list`: every resource's latest version, sorted by path, after `cursor` (a path).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(Vec<(ResourceRecord, u64)>, Option<String>), ActorError>")]
pub struct ListResources {
    pub cursor: Option<String>,
    pub page: usize,
}

impl Handler<ListResources> for ProjectActor {
    type Result = ResponseFuture<Result<(Vec<(ResourceRecord, u64)>, Option<String>), ActorError>>;

    fn handle(&mut self, msg: ListResources, _: &mut Context<Self>) -> Self::Result {
        let read = read_resources(self, move |r| {
            let after = msg.cursor.unwrap_or_default();
            let mut out = Vec::new();
            let mut next = None;
            for (path, id) in r
                .by_path
                .range::<String, _>((std::ops::Bound::Excluded(after), std::ops::Bound::Unbounded))
            {
                if out.len() == msg.page {
                    next = out
                        .last()
                        .map(|(l, _): &(ResourceRecord, u64)| l.path.clone());
                    break;
                }
                if let Some(res) = r.resources.get(id) {
                    if let Some(v) = res.latest() {
                        out.push((ResourceRecord::of(res, v), res.versions.len() as u64));
                    }
                }
                let _ = path;
            }
            (out, next)
        });
        Box::pin(read)
    }
}

/// The record and exact bytes of one version (`stale` when an uncaptured file changed).
/// `cached` says whether the caller already holds content for a record: bytes known unchanged
/// are then not read again (`None`).
pub(crate) fn load(
    act: &mut ProjectActor,
    id: Uuid,
    version: u64,
    max_file_bytes: u64,
    cached: impl FnOnce(&ResourceRecord) -> bool + Send + 'static,
) -> impl Future<Output = Result<(ResourceRecord, Option<Vec<u8>>), FilesError>> {
    load_via(
        act,
        (id, version),
        cached,
        move |dir, rec, cached, verified| {
            let (path, facts) = (&rec.path, &rec.facts);
            store::load_unless_cached(dir, path, facts, max_file_bytes, cached, verified)
        },
    )
}

/// Like [`load`], but what `stream` makes of the bytes read a piece at a time, each piece hashed
/// as it is handed out (`stream::stream_unless_cached`); when `stream` gives up, what `whole`
/// makes of the bytes read whole: the caller never holds a copy of the bytes.
pub(crate) fn load_with<R: Send + 'static>(
    act: &mut ProjectActor,
    (id, version): (Uuid, u64),
    max_file_bytes: u64,
    cached: impl FnOnce(&ResourceRecord) -> bool + Send + 'static,
    stream: impl FnOnce(&ResourceRecord, &mut dyn Source) -> Option<R> + Send + 'static,
    whole: impl FnOnce(&ResourceRecord, &[u8]) -> R + Send + 'static,
) -> impl Future<Output = Result<(ResourceRecord, Option<R>), FilesError>> {
    load_via(
        act,
        (id, version),
        cached,
        move |dir, rec, cached, verified| {
            let stream = |src: &mut dyn Source| stream(rec, src);
            let whole = |b: &[u8]| whole(rec, b);
            let (path, facts, seen) = (&rec.path, &rec.facts, (cached, verified));
            stream_unless_cached(dir, path, facts, max_file_bytes, seen, stream, whole)
        },
    )
}

/// The record of one version, then `read` of its bytes on a blocking thread.
fn load_via<T: Send + 'static>(
    act: &mut ProjectActor,
    (id, version): (Uuid, u64),
    cached: impl FnOnce(&ResourceRecord) -> bool + Send + 'static,
    read: impl FnOnce(&Path, &ResourceRecord, bool, &store::Verified) -> Result<Option<T>, FilesError>
        + Send
        + 'static,
) -> impl Future<Output = Result<(ResourceRecord, Option<T>), FilesError>> {
    let records = read_resources(act, move |r| r.record(id, version));
    let dir = act.dir().to_path_buf();
    let verified = act.service_state().verified.clone();
    async move {
        let rec = records.await??;
        let cached = cached(&rec);
        let (rec, made) = blocking(move || {
            let made = read(&dir, &rec, cached, &verified)?;
            Ok((rec, made))
        })
        .await?;
        Ok((rec, made))
    }
}

/// The record and exact bytes of one version (`stale` when an uncaptured file changed).
#[derive(Debug, Clone, Message)]
#[rtype(result = "Result<(ResourceRecord, Vec<u8>), FilesError>")]
pub struct LoadResource {
    pub id: Uuid,
    pub version: u64,
    pub max_file_bytes: u64,
}

impl Handler<LoadResource> for ProjectActor {
    type Result = ResponseFuture<Result<(ResourceRecord, Vec<u8>), FilesError>>;

    fn handle(&mut self, msg: LoadResource, _: &mut Context<Self>) -> Self::Result {
        let work = load(self, msg.id, msg.version, msg.max_file_bytes, |_| false);
        Box::pin(async move {
            let (rec, bytes) = work.await?;
            Ok((rec, bytes.unwrap_or_default()))
        })
    }
}
