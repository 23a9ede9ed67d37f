//! The Core Host: a separate process per project serving `<project>/.rho/host.sock`.

pub mod client;
pub mod paths;
pub mod proto;
pub mod server;
