//! Conversations with the person's Claude Code and Codex over ACP: the typed ACP client, the
//! adapter launch, a session's turns, the record each message keeps, and the conversation
//! service on top: one journaled child actor per conversation, its live driver and `conversation.*`.

pub mod acp;
pub mod contract;
pub mod driver;
pub mod entity;
#[cfg(test)]
mod entity_tests;
pub mod events;
pub mod handlers;
pub mod launch;
pub mod live;
pub mod record;
pub mod render;
pub mod session;

pub use entity::ConversationEntity;
pub use launch::{Backend, LaunchError, Runtimes};
pub use record::{MessageRecord, RecordLimits, ToolStep};
pub use session::{AgentSession, PermissionRequest, SessionError, TurnEvent};
