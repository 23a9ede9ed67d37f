//! What one bounded client call (`claude`/`codex` `mcp add`) did: its command, exit, output and bounds hit.

use std::path::PathBuf;

/// What one bounded client call did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRun {
    /// The client program and its arguments.
    pub command: PathBuf,
    pub args: Vec<String>,
    /// `None` when it was stopped (or did not start).
    pub exit_code: Option<i32>,
    /// What it printed (stdout, then stderr), at most `CLIENT_OUTPUT` bytes.
    pub output: String,
    pub timed_out: bool,
    pub truncated: bool,
}

impl ClientRun {
    /// The wire form.
    pub fn view(&self) -> crate::agent::contract::session::ClientView {
        crate::agent::contract::session::ClientView {
            args: self.args.clone(),
            command: self.command.display().to_string(),
            exit_code: self.exit_code,
            output: self.output.clone(),
            timed_out: self.timed_out,
            truncated: self.truncated,
        }
    }

    /// Whether the client accepted: exit 0 within both bounds.
    pub fn succeeded(&self) -> bool {
        self.exit_code == Some(0) && !self.timed_out && !self.truncated
    }
}
