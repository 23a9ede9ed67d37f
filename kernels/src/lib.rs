//! rho-kernels: processes Rho supervises. Today the Core Host that runs managed `r.execute`
//! scripts once per `operationId`, its wire protocol, its client, the guard R runs under and the
//! Core CLI.

pub mod cli;
pub mod console;
pub mod core;
pub mod guard;
pub mod host;
pub mod notebook;
pub mod remote;
