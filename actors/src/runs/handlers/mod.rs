//! The project actor's side of owner r: one file per message (or small group).

pub mod export;
pub mod output;
pub mod state;
pub mod submit;
pub mod supervise;
