//! Owner r, managed execution: `r.execute` runs delivered once to the project's Core Host, observed, stopped.

pub mod config;
pub mod contract;
pub mod entity;
pub mod model;

pub use entity::{RunCommand, RunEvent, RunsEntity};
pub use model::{CoreIdentity, RunRecord};
