//! The one table of owners: each owner's spec (declared in its own folder), the project state's
//! owner fields, and what owners keep on the project actor ([`Owned`]).
//!
//! Everything that loops over owners reads [`OWNERS`]: the operation, entry and action lists
//! (`contract/registry.rs`), owner dependencies (`Owner::requires`), the fold and summary of each
//! entity kind (`state.rs`), the start of children from replayed state (`children.rs`) and
//! recovery after replay (`project_actor.rs`), so none of those names an owner.
//!
//! Adding an owner is its spec line in [`OWNERS`] and, when it journals state, its field in
//! [`ProjectState`] below (which changes the snapshot encoding: bump `STATE_FORMAT`).

use crate::children::Children;
use crate::contract::actions::ActionSpec;
use crate::contract::entry::EntrySpec;
use crate::contract::OperationSpec;
use crate::entity::{decode_event, Entity, EntityEvent, FoldError};
use crate::owners::Owner;
use crate::project_actor::ProjectActor;
use actix::prelude::*;
use rho_journal::Record;
use std::collections::BTreeMap;
use uuid::Uuid;

/// Every owner, in the order its entity kinds start and its recovery runs.
pub(crate) const OWNERS: &[OwnerSpec] = &[
    crate::documents::SPEC,
    crate::files::SPEC,
    crate::tables::SPEC,
    crate::media::SPEC,
    crate::charts::SPEC,
    crate::requirements::SPEC,
    crate::runs::SPEC,
    crate::agent::SPEC,
    crate::console::SPEC,
    crate::kernel::SPEC,
    // Selectable owners with no parts in this build yet: they provide nothing.
    OwnerSpec::without_parts(Owner::Annotations, &[Owner::Documents]),
];

crate::state::project_state! {
    /// Document buffers by id (documents owner).
    documents: BTreeMap<Uuid, crate::documents::DocumentEntity>,
    /// Frozen contexts (agent owner).
    contexts: crate::contexts::ContextsEntity,
    resources: crate::files::ResourcesEntity,
    selections: crate::tables::entity::SelectionsEntity,
    /// Explicit package preparations (requirements owner).
    requirements: crate::requirements::RequirementsEntity,
    /// Managed runs (r owner).
    runs: crate::runs::RunsEntity,
    /// Agent activity and bindings (agent owner).
    agent: crate::agent::AgentEntity,
    /// Shell command records (console owner).
    console: crate::console::ConsoleEntity,
    /// Notebook sessions and cells (kernel owner).
    kernel: crate::kernel::KernelEntity,
    /// Conversations with the person's Agent by id (agent owner).
    conversations: BTreeMap<Uuid, crate::agent::conversation::ConversationEntity>,
}

/// What owners keep on the project actor beside their entities, rebuilt from replayed state.
pub(crate) struct Owned {
    /// The documents owner's view of its buffers (paths, open set, bytes).
    pub(crate) docs: crate::documents::DocIndex,
    /// The kernel owner's live sessions (processes; never journaled state).
    pub(crate) kernel: crate::kernel::live::LiveSessions,
    /// The agent owner's live conversation drivers (never journaled).
    pub(crate) conversations: crate::agent::conversation::live::LiveConversations,
}

impl Owned {
    pub(crate) fn from_state(state: &ProjectState) -> Self {
        Owned {
            docs: crate::documents::DocIndex::from_state(&state.documents),
            kernel: Default::default(),
            conversations: Default::default(),
        }
    }
}

/// One owner's declaration: what it provides and how its state lives in a project.
pub(crate) struct OwnerSpec {
    pub(crate) owner: Owner,
    /// Owners it cannot work without (seed line 14). Action-level needs (r.execute needs
    /// Requirements) are declared by the actions themselves.
    pub(crate) requires: &'static [Owner],
    /// Its operations' declarations (each list from one contract module).
    pub(crate) operations: &'static [&'static [OperationSpec]],
    /// Its UI component entries.
    pub(crate) entries: &'static [EntrySpec],
    /// Its registered actions.
    pub(crate) actions: &'static [ActionSpec],
    /// The entity kinds it folds into [`ProjectState`].
    pub(crate) kinds: &'static [EntityKind],
    /// Its recovery after replay (CONVENTIONS, Recovery): runs once, live, when the project
    /// actor starts, after every child's pure `Entity::reconcile`.
    pub(crate) recover: Option<fn(&mut ProjectActor, &mut Context<ProjectActor>)>,
}

impl OwnerSpec {
    /// An owner `--plugins` may select that has no operations, entries or state yet.
    pub(crate) const fn without_parts(owner: Owner, requires: &'static [Owner]) -> Self {
        OwnerSpec {
            owner,
            requires,
            operations: &[],
            entries: &[],
            actions: &[],
            kinds: &[],
            recover: None,
        }
    }
}

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
    /// The JSON of entity `id` of this kind, if the state holds it (`inspect --replay --entity`;
    /// the per-project kinds answer through the project's id, so they have none).
    pub(crate) json: fn(&ProjectState, &Uuid) -> Option<serde_json::Value>,
}

/// The summary of a record of `E`'s kind.
pub(crate) fn summary<E: Entity>(rec: &Record) -> Result<String, FoldError> {
    Ok(decode_event::<E>(rec)?.event.summary())
}

/// An entity kind with one entity per project (its id is the project's), held in the
/// [`ProjectState`] field `$field`.
macro_rules! per_project {
    ($entity:ty, $field:ident) => {
        $crate::owner_table::EntityKind {
            kind: <$entity as $crate::entity::Entity>::KIND,
            fold: |s, rec| $crate::entity::fold_record(&mut s.$field, rec),
            describe: $crate::owner_table::summary::<$entity>,
            start: |s, c, pid| drop(c.insert(pid, std::mem::take(&mut s.$field))),
            json: |_, _| None,
        }
    };
}
pub(crate) use per_project;

/// Every owner's entity kinds, in the order their children start.
pub(crate) fn kinds() -> impl Iterator<Item = &'static EntityKind> {
    OWNERS.iter().flat_map(|o| o.kinds)
}

/// The entity kind named `kind`, if an owner folds it.
pub(crate) fn kind(kind: &str) -> Option<&'static EntityKind> {
    kinds().find(|k| k.kind == kind)
}

/// The spec of `owner`.
pub(crate) fn spec(owner: Owner) -> Option<&'static OwnerSpec> {
    OWNERS.iter().find(|o| o.owner == owner)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_owner_and_kind_is_listed_once() {
        let mut kinds: Vec<&str> = kinds().map(|k| k.kind).collect();
        kinds.sort_unstable();
        kinds.dedup();
        assert_eq!(kinds.len(), super::kinds().count());
        assert_eq!(OWNERS.len(), Owner::ALL.len());
        assert!(Owner::ALL.iter().all(|o| spec(*o).is_some()));
    }

    #[test]
    fn every_entry_and_action_is_declared_by_its_owner() {
        // Operations may name another owner (runs/ declares Files' `artifact.check`) or none
        // (the service-level `session.*` in agent/); entries and actions are their owner's.
        for o in OWNERS {
            assert!(o.entries.iter().all(|e| e.owner == o.owner));
            assert!(o.actions.iter().all(|a| a.owner == o.owner));
        }
    }
}
