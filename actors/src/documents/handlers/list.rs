//! Buffer-vs-disk facts of every document of the project (resident and evicted), for
//! `observation.snapshot` and exports.

use crate::child::Query;
use crate::documents::entity::DocumentEntity;
use crate::error::ActorError;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use serde::Serialize;
use uuid::Uuid;

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
        let evicted = self.owned.docs.evicted_facts();
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
