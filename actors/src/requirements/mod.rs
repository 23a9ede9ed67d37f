//! Owner Requirements: declared R packages, the bounded base-R probe, explicit preparation into the project library.

pub mod contract;
pub mod entity;
pub mod handlers;
pub mod install;
pub mod model;
pub mod probe;

pub use entity::{PrepareOutcome, RequirementsEntity};
pub use model::{Probe, Repos, Requirement};
