//! Conversations with the person's Claude Code and Codex over ACP (or Claude Code's own CLI):
//! the typed ACP client, the launch, a session's turns, the record each message keeps, and the
//! conversation service on top: one journaled child actor per conversation, its live driver and
//! `conversation.*`.

pub mod acp;
mod answers;
pub mod card_image;
pub mod cli;
pub mod contract;
mod control;
pub mod driver;
pub mod entity;
#[cfg(test)]
mod entity_tests;
pub mod events;
mod fold;
pub mod handlers;
pub mod kept;
pub mod launch;
pub mod ledger;
pub mod live;
pub mod model;
pub mod native;
pub mod native_input;
mod native_setup;
pub mod port;
pub mod questions;
pub mod record;
pub mod render;
pub mod session;
pub mod summary;
pub mod surfaces;
pub mod surfaces_contract;
mod turn;

pub use entity::ConversationEntity;
pub use launch::{Backend, LaunchError, Runtimes};
pub use record::{MessageRecord, RecordLimits, ToolStep};
pub use session::{AgentSession, PermissionRequest, SessionError, TurnEvent};
