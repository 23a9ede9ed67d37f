//! Owner Charts: `data.plot` over the Tables reader and cache, and the `rho.scatter` UI entry.

pub mod contract;
pub mod entry;
pub mod handlers;
pub mod plot;
