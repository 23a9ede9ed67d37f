//! The external ACP relay's side in the service: the facts `rho --acp` reports about an external
//! client's sessions (journaled per project, projected to `.rho/agent/acp/`), and their reading.

pub mod contract;
pub mod entity;
pub mod handlers;
pub mod view;

pub use entity::{RelayEntity, RelayFact, RelayHeader, RelayRecord};
