//! The Console's process side: the guard that runs one shell command detached from the service,
//! and the files it writes (which the service follows).

pub mod files;
pub mod guard;
pub mod keeper;
pub mod start;
