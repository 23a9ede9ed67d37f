//! The children of one project: one actor per entity, by kind and id, started from replayed state.
//!
//! Each owner's entity kind gets its own typed map; `Children::start` turns replayed state into
//! running actors through the owner table (`owner_table::kinds`), naming no owner.

use crate::child::{EntityActor, Reconcile};
use crate::entity::Entity;
use crate::owners::Selection;
use crate::state::ProjectState;
use actix::prelude::*;
use rho_journal::Journal;
use std::any::Any;
use std::collections::HashMap;
use std::sync::Arc;
use uuid::Uuid;

/// Every running child actor of one project.
pub(crate) struct Children {
    journal: Arc<Journal>,
    selection: Arc<Selection>,
    maps: HashMap<&'static str, Box<dyn Any>>,
    reconcilers: Vec<Recipient<Reconcile>>,
    /// True while `start` inserts the replayed entities (only they are reconciled).
    starting: bool,
}

type Map<E> = HashMap<Uuid, Addr<EntityActor<E>>>;

impl Children {
    /// Starts one actor per entity of the replayed state.
    pub(crate) fn start(
        mut state: ProjectState,
        journal: &Arc<Journal>,
        selection: &Arc<Selection>,
    ) -> Self {
        let mut c = Children {
            journal: journal.clone(),
            selection: selection.clone(),
            maps: HashMap::new(),
            reconcilers: Vec::new(),
            starting: true,
        };
        // The project entity's id is the project's id, also before `project.created` is folded.
        let pid = journal.project_id();
        c.insert(pid, std::mem::take(&mut state.project));
        // Owners' entity kinds, from the one owner table.
        for kind in crate::owner_table::kinds() {
            (kind.start)(&mut state, &mut c, pid);
        }
        c.starting = false;
        c
    }

    // The one justified `expect`: `maps` is keyed by `E::KIND` and only this function inserts,
    // always a `Map<E>`, so the downcast cannot fail unless two entity types share a KIND
    // (a programming error caught by every test that starts a project).
    #[allow(clippy::expect_used)]
    fn map<E: Entity>(&mut self) -> &mut Map<E> {
        self.maps
            .entry(E::KIND)
            .or_insert_with(|| Box::new(Map::<E>::new()))
            .downcast_mut::<Map<E>>()
            .expect("one map type per entity kind")
    }

    /// Starts the actor of entity `id` from `state` (replacing none: ids are unique per kind).
    pub(crate) fn insert<E: Entity>(&mut self, id: Uuid, state: E) -> Addr<EntityActor<E>> {
        let addr =
            EntityActor::new(id, state, self.journal.clone(), self.selection.clone()).start();
        if self.starting {
            self.reconcilers.push(addr.clone().recipient());
        }
        self.map::<E>().insert(id, addr.clone());
        addr
    }

    /// The running actor of entity `id`, if the entity exists.
    pub(crate) fn get<E: Entity>(&mut self, id: Uuid) -> Option<Addr<EntityActor<E>>> {
        self.map::<E>().get(&id).cloned()
    }

    /// The actor of entity `id`, starting a fresh one (default state) if there is none yet.
    pub(crate) fn get_or_new<E: Entity>(&mut self, id: Uuid) -> Addr<EntityActor<E>> {
        match self.get::<E>(id) {
            Some(a) => a,
            None => self.insert(id, E::default()),
        }
    }

    /// Every running actor of one kind.
    pub(crate) fn all<E: Entity>(&mut self) -> Vec<(Uuid, Addr<EntityActor<E>>)> {
        self.map::<E>()
            .iter()
            .map(|(id, a)| (*id, a.clone()))
            .collect()
    }

    /// Stops the actor of entity `id` (its state leaves memory; the journal keeps it).
    pub(crate) fn remove<E: Entity>(&mut self, id: Uuid) {
        self.map::<E>().remove(&id);
    }

    /// Asks every child to settle what was in flight at a crash (once, after replay). The
    /// recipients are dropped afterwards, so a child's actor lives only as long as its map entry.
    pub(crate) fn reconcile(&mut self, time_ms: i64) {
        for r in self.reconcilers.drain(..) {
            // A failure surfaces as a failed journal write, which the project handles.
            r.do_send(Reconcile { time_ms });
        }
    }
}
