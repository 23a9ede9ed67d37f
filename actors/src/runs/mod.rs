//! Owner r, managed execution: `r.execute` runs delivered once to the project's Core Host, observed, stopped.

pub mod actions;
pub mod check;
pub mod config;
pub mod context;
pub mod contract;
pub mod entity;
pub mod export;
pub mod freeze;
pub mod handlers;
pub mod host;
pub mod model;
mod outputs;
pub mod reconcile;
pub mod render;
pub mod watch;

pub use entity::{RunCommand, RunEvent, RunsEntity};
pub use model::{CoreIdentity, RunRecord};
