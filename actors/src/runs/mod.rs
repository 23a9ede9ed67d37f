//! Owner r, managed execution: `r.execute` runs delivered once to the project's Core Host, observed, stopped.

pub mod actions;
pub mod announce;
pub mod check;
pub mod config;
pub mod context;
pub mod contract;
pub mod entity;
pub mod export;
pub mod export_msg;
pub mod freeze;
pub mod host;
pub mod model;
pub mod output;
mod outputs;
pub mod render;
pub mod state_msgs;
pub mod submit;
pub mod supervise;

pub use entity::{RunCommand, RunEvent, RunsEntity};
pub use model::{CoreIdentity, RunRecord};
