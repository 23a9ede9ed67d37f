//! Places beyond this machine (issue 19): ssh hosts, Slurm clusters and serverctl servers a
//! project names; where each language's next session starts; checks, listings and copies.

pub mod book;
pub mod ops;
pub mod runtime;
pub mod servers;
pub(crate) mod session;

pub use book::{PlaceBook, PlaceCommand, PlaceEvent, PlaceReply, LOCAL};
pub use runtime::RemoteRuntime;
