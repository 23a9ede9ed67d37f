//! Conversations with the person's Claude Code and Codex over ACP: the typed ACP client, the
//! adapter launch, a session's turns and the record each message keeps (issue 17, backend slice).

pub mod acp;
pub mod launch;
pub mod record;
pub mod session;

pub use launch::{Backend, LaunchError, Runtimes};
pub use record::{MessageRecord, RecordLimits, ToolStep};
pub use session::{AgentSession, PermissionRequest, SessionError, TurnEvent};
