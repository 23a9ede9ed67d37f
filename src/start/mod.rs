//! Service start: folders, runtimes, port memory, the connection file and the example project.

pub(crate) mod connection;
pub(crate) mod conversations;
pub(crate) mod core;
pub(crate) mod example;
pub(crate) mod folders;
pub(crate) mod hosts;
pub(crate) mod places;
pub(crate) mod port;
pub(crate) mod runtimes;
pub(crate) mod which;
