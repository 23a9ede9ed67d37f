//! `observation.snapshot`'s facts in one message to the ServiceActor: the projects a caller may see, and one project's entity, documents, runs and selections.

use crate::documents::handlers::{DocFacts, ListDocuments};
use crate::error::ActorError;
use crate::project::ProjectEntity;
use crate::project_actor::ProjectRead;
use crate::runs::handlers::state::ReadRuns;
use crate::runs::RunRecord;
use crate::service::{ProjectListing, ServiceActor};
use crate::tables::entity::Selection;
use crate::tables::handlers::ListSelections;
use actix::prelude::*;
use std::path::Path;
use uuid::Uuid;

/// Whether a caller may see a project (its id, its folder).
pub type InScope = Box<dyn Fn(Uuid, &Path) -> bool + Send>;

/// The facts of a snapshot. A requested project outside `in_scope` (or unknown) is `not_found`
/// and is never opened.
#[derive(Message)]
#[rtype(result = "Result<SnapshotFacts, ActorError>")]
pub struct Snapshot {
    /// `None`: the listing only.
    pub project: Option<Uuid>,
    pub in_scope: InScope,
}

/// What [`Snapshot`] answers.
#[derive(Debug, Clone)]
pub struct SnapshotFacts {
    /// Every registered project the caller may see, with its availability.
    pub projects: Vec<ProjectListing>,
    /// The requested project.
    pub project: Option<ProjectSnapshot>,
}

/// One project's part of a snapshot.
#[derive(Debug, Clone)]
pub struct ProjectSnapshot {
    /// Its registry row (name, folder).
    pub listing: ProjectListing,
    /// Its facts, or why it could not be opened or read.
    pub facts: Result<ProjectFacts, ActorError>,
    /// Its selections; `None` when they could not be read.
    pub selections: Option<Vec<Selection>>,
}

/// The facts of an open project.
#[derive(Debug, Clone)]
pub struct ProjectFacts {
    pub entity: ProjectEntity,
    pub documents: Vec<DocFacts>,
    pub runs: Vec<RunRecord>,
}

fn mailbox(e: MailboxError) -> ActorError {
    ActorError::internal(e.to_string())
}

impl Handler<Snapshot> for ServiceActor {
    type Result = ResponseFuture<Result<SnapshotFacts, ActorError>>;

    fn handle(&mut self, msg: Snapshot, ctx: &mut Context<Self>) -> Self::Result {
        let projects: Vec<ProjectListing> = self
            .listing()
            .into_iter()
            .filter(|p| (msg.in_scope)(p.id, &p.dir))
            .collect();
        let Some(id) = msg.project else {
            return Box::pin(async move {
                Ok(SnapshotFacts {
                    projects,
                    project: None,
                })
            });
        };
        let Some(listing) = projects.iter().find(|p| p.id == id).cloned() else {
            return Box::pin(async {
                Err(ActorError::NotFound {
                    what: "project".into(),
                })
            });
        };
        let opening = self.ensure_open(id, ctx);
        Box::pin(async move {
            let opened = opening.await;
            let facts = match &opened {
                Ok(addr) => match addr.send(ProjectRead).await.map_err(mailbox) {
                    Ok(Ok(entity)) => Ok(ProjectFacts {
                        entity,
                        documents: addr.send(ListDocuments).await.map_err(mailbox)??,
                        runs: addr
                            .send(ReadRuns { operation_id: None })
                            .await
                            .map_err(mailbox)??,
                    }),
                    Ok(Err(e)) | Err(e) => Err(e),
                },
                Err(e) => Err(e.clone()),
            };
            let selections = match &opened {
                Ok(addr) => addr.send(ListSelections).await.ok().and_then(Result::ok),
                Err(_) => None,
            };
            Ok(SnapshotFacts {
                projects,
                project: Some(ProjectSnapshot {
                    listing,
                    facts,
                    selections,
                }),
            })
        })
    }
}
