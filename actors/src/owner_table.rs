//! The one table of owners' project-side parts: each entity kind's fold, record summary and
//! child start, each owner's recover hook after replay, and what owners keep on the project
//! actor ([`Owned`]). `state.rs`, `children.rs` and
//! `project_actor.rs` loop over it and name no owner.
//!
//! Adding an owner's entity kind is one [`EntityKind`] line here (plus its field in
//! `ProjectState`, which fixes the snapshot encoding); adding recovery is one [`Recover`] line.

use crate::children::Children;
use crate::entity::{decode_event, fold_record, Entity, EntityEvent, FoldError};
use crate::project_actor::ProjectActor;
use crate::state::ProjectState;
use actix::prelude::*;
use rho_journal::Record;
use uuid::Uuid;

/// One entity kind an owner folds into [`ProjectState`].
pub(crate) struct EntityKind {
    /// The kind in journal frames (`Entity::KIND`).
    pub(crate) kind: &'static str,
    /// Folds one record of this kind into the project's state.
    pub(crate) fold: fn(&mut ProjectState, &Record) -> Result<(), FoldError>,
    /// The event kind's one-line summary (`rho journal inspect`).
    pub(crate) describe: fn(&Record) -> Result<String, FoldError>,
    /// Moves the replayed entities of this kind out of the state into running child actors.
    pub(crate) start: fn(&mut ProjectState, &mut Children, Uuid),
}

/// One owner's recovery after replay (CONVENTIONS, Recovery): runs once, live, when the project
/// actor starts, after every child's pure `Entity::reconcile`.
pub(crate) struct Recover {
    pub(crate) owner: &'static str,
    pub(crate) hook: fn(&mut ProjectActor, &mut Context<ProjectActor>),
}

fn summary<E: Entity>(rec: &Record) -> Result<String, FoldError> {
    Ok(decode_event::<E>(rec)?.event.summary())
}

/// An entity kind with one entity per project (its id is the project's).
macro_rules! per_project {
    ($entity:ty, $field:ident) => {
        EntityKind {
            kind: <$entity as Entity>::KIND,
            fold: |s, rec| fold_record(&mut s.$field, rec),
            describe: summary::<$entity>,
            start: |s, c, pid| drop(c.insert(pid, std::mem::take(&mut s.$field))),
        }
    };
}

/// Every owner's entity kinds, in the order their children start.
pub(crate) const KINDS: &[EntityKind] = &[
    EntityKind {
        kind: <crate::documents::DocumentEntity as Entity>::KIND,
        fold: |s, rec| fold_record(s.documents.entry(rec.entity.id).or_default(), rec),
        describe: summary::<crate::documents::DocumentEntity>,
        start: |s, c, _| {
            for (id, d) in std::mem::take(&mut s.documents) {
                drop(c.insert(id, d));
            }
        },
    },
    per_project!(crate::files::ResourcesEntity, resources),
    per_project!(crate::tables::selection::SelectionsEntity, selections),
    per_project!(crate::contexts::ContextsEntity, contexts),
    per_project!(crate::requirements::RequirementsEntity, requirements),
    per_project!(crate::runs::RunsEntity, runs),
    per_project!(crate::agent::AgentEntity, agent),
];

/// Every owner's recover hook, in order.
pub(crate) const RECOVER: &[Recover] = &[
    Recover {
        owner: "documents",
        hook: |act, ctx| {
            crate::documents::reconcile::settle_saves(act, ctx);
            // Idle buffers leave memory (the journal keeps them).
            let idle = act.config().document_idle;
            let every = (idle / 2).clamp(
                std::time::Duration::from_millis(10),
                std::time::Duration::from_secs(60),
            );
            ctx.run_interval(every, move |act, _| act.evict_idle_documents(idle));
        },
    },
    Recover {
        owner: "r",
        // Observes the runs that were in flight through their Hosts (a self-message).
        hook: |_, ctx| ctx.notify(crate::runs::reconcile::RecoverRuns),
    },
];

/// What owners keep on the project actor beside their entities, rebuilt from replayed state.
pub(crate) struct Owned {
    /// The documents owner's view of its buffers (paths, open set, bytes).
    pub(crate) docs: crate::documents::DocIndex,
}

impl Owned {
    pub(crate) fn from_state(state: &ProjectState) -> Self {
        Owned {
            docs: crate::documents::DocIndex::from_state(&state.documents),
        }
    }
}

/// Document buffer actors in memory (`Status`; evicted ones are not).
pub(crate) fn resident_documents(children: &mut Children) -> usize {
    children.all::<crate::documents::DocumentEntity>().len()
}

/// The entity kind named `kind`, if an owner folds it.
pub(crate) fn kind(kind: &str) -> Option<&'static EntityKind> {
    KINDS.iter().find(|k| k.kind == kind)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_is_listed_once_and_every_hook_names_an_owner() {
        let mut kinds: Vec<&str> = KINDS.iter().map(|k| k.kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), KINDS.len());
        assert!(RECOVER
            .iter()
            .all(|r| crate::owners::Owner::parse(r.owner).is_some()));
    }
}
