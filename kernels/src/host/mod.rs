//! The Core Host: a separate process per project serving `<project>/.rho/host.sock`.

pub mod proto;
