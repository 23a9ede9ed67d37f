//! rho-actors: project actors that own a writer lease and a journal, and rebuild entity state by replay.
//!
//! Module map: [`entity`] is the child-entity pattern (fold, decide, identities), run by one
//! actor per entity (`child`, crate-private); [`project`] is the first entity; [`state`] folds a
//! whole project and [`replay`] rebuilds it from a snapshot plus the journal tail;
//! [`project_actor`] serializes one project's writes; [`service`] supervises projects. [`codec`]
//! is the only place that knows bincode.
//!
//! The public surface is what the HTTP edge, the `rho` binary, the benchmarks and the black-box
//! tests use: the owners' contracts and messages, the service and project actors, configuration
//! and limits, the event bus, replay and state for `rho journal inspect`. The entity actors and
//! their per-project map (`child`, `children`), the shared state of one service
//! (`service_state`), the owner table, entry listing and the durable-write hook are private to
//! the crate: the edge reaches entities only through the project actor's messages.

pub mod charts;
pub(crate) mod child;
pub(crate) mod children;
pub mod codec;
pub mod console;
pub mod documents;
pub(crate) mod durable;
pub mod entity;
pub(crate) mod entries;
pub mod error;
pub mod events;
pub mod files;
pub mod identity;
pub mod kernel;
pub mod limits;
pub mod media;
pub mod objects;
pub mod observe;
pub mod open;
mod owner;
mod owner_table;
pub mod owners;
pub mod paths;
pub mod principal;
pub mod project;
pub mod project_actor;
pub mod registry;
pub mod replay;
pub mod service;
pub(crate) mod service_state;
pub mod state;
pub mod tables;

pub use error::ActorError;
pub use principal::Principal;
pub mod agent;
pub mod contexts;
pub mod contract;
pub mod requirements;
pub mod runs;
pub mod service_contract;
pub mod snapshot_contract;
#[cfg(feature = "test-owner")]
pub mod testing;
