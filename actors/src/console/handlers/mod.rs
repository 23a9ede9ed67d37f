//! The project actor's side of owner console: one file per message (or small group).

pub mod output;
pub mod run;
pub mod state;
pub mod stop;
