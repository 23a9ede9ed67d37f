//! The agent owner's Agent access: grants and the `AgentAccess` actor (grant lifecycle, connection files, client CLIs), the bounded activity record, external bindings, the knowledge catalog and shipped skills.

pub mod access;
pub mod catalog;
pub mod contract;
pub mod entity;
pub mod grants;
pub mod handlers;
pub mod skills;

pub use entity::{Activity, AgentEntity};
