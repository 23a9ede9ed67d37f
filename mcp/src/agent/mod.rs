//! Rho's own agent (issue 18, phase 1): a plain-tokio loop over the person's model provider
//! (`crate::model`) that consumes the MCP client. Per turn it builds the system prompt (Rho's
//! text and fenced server instructions) and the tool set (the project's granted operations and
//! the MCP tools), streams the answer, runs tool calls and feeds their results back until the
//! model ends its turn; it keeps a usage ledger per message and purpose, and exposes the
//! surfaces the panel uses: slash-command prompts, `@` resources, forms, sampling, `/mcp` and
//! `/doctor`. Nothing here knows actors or the journal: the conversation driver wraps it.

mod desk;
pub mod events;
pub mod ledger;
pub mod project;
pub mod prompt;
pub mod session;
pub mod surfaces;
pub mod tools;
mod turn;

pub use desk::RoundTrip;
pub use events::{AgentEvent, FormAsk, SamplingQuestion, StepEnd, StepStart, ToolSource, TurnEnd};
pub use ledger::{Ledger, Spend, Totals, MCP_SAMPLING, TURN};
pub use project::{GrantTools, ProjectOutcome, ProjectTools};
pub use prompt::SYSTEM_PROMPT;
pub use session::{AgentError, NativeSession, NativeSetup, DEFAULT_MAX_STEPS};
pub use surfaces::{attach_resource, resolve_line, Doctor, McpHealth, ProviderHealth};
