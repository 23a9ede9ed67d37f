//! The Claude Code and Codex CLIs: each client's own `mcp add` command line, run bounded in time and output in its own process group.
//!
//! Blocking: [`run`] is called on a blocking thread. The child runs through the one bounded
//! runner (`rho_plumbing::child`): its own process group, killed as a whole at a bound.

use super::error::AccessError;
use rho_plumbing::child::{self as bounded, Cut};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// Each client call: at most this long...
pub const CLIENT_TIMEOUT: Duration = Duration::from_secs(20);
/// ...and at most this much output (stdout and stderr together).
pub const CLIENT_OUTPUT: usize = 8 * 1024;

/// What one bounded client call did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientRun {
    /// The client program and its arguments.
    pub command: PathBuf,
    pub args: Vec<String>,
    /// `None` when it was stopped (or did not start).
    pub exit_code: Option<i32>,
    /// What it printed (stdout, then stderr), at most [`CLIENT_OUTPUT`] bytes.
    pub output: String,
    pub timed_out: bool,
    pub truncated: bool,
}

impl ClientRun {
    /// The wire form.
    pub fn view(&self) -> crate::agent::session_contract::ClientView {
        crate::agent::session_contract::ClientView {
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

/// The client program and its `mcp add` arguments for an Agent kind.
pub(super) fn call(
    agent: &str,
    claude: Option<&PathBuf>,
    codex: Option<&PathBuf>,
    exe: &Path,
    file: &Path,
) -> Result<(PathBuf, Vec<String>), AccessError> {
    let (program, mut args, flag) = match agent {
        "claude-code" => (
            claude,
            vec!["mcp", "add", "-s", "local", "rho", "--"],
            "--claude / RHO_CLAUDE",
        ),
        "codex" => (
            codex,
            vec!["mcp", "add", "rho", "--"],
            "--codex / RHO_CODEX",
        ),
        _ => {
            return Err(AccessError::Invalid {
                field: "agent",
                reason: "agent is claude-code or codex".into(),
            })
        }
    };
    let program = program.cloned().ok_or_else(|| AccessError::NoClient {
        agent: agent.to_string(),
        flag,
    })?;
    let exe = exe.display().to_string();
    let file = file.display().to_string();
    args.extend([exe.as_str(), "--mcp", file.as_str()]);
    Ok((program, args.into_iter().map(String::from).collect()))
}

/// Runs `program args` in `cwd`, stopped at the time or output bound with what it printed.
pub(super) fn run(program: PathBuf, args: Vec<String>, cwd: &Path) -> ClientRun {
    let mut cmd = Command::new(&program);
    cmd.args(&args).current_dir(cwd);
    match bounded::run(cmd, CLIENT_TIMEOUT, CLIENT_OUTPUT as u64) {
        Ok(done) => {
            let mut bytes = done.stdout;
            bytes.extend_from_slice(&done.stderr);
            let shown = &bytes[..bytes.len().min(CLIENT_OUTPUT)];
            ClientRun {
                command: program,
                args,
                exit_code: done.exit_code,
                output: String::from_utf8_lossy(shown).into_owned(),
                timed_out: done.cut == Some(Cut::Timeout),
                truncated: done.cut == Some(Cut::OutputLimit) || bytes.len() > CLIENT_OUTPUT,
            }
        }
        Err(e) => ClientRun {
            command: program,
            args,
            exit_code: None,
            output: e.to_string(),
            timed_out: false,
            truncated: false,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_client_call_is_bounded_and_reports_what_it_printed() {
        let dir = std::env::temp_dir();
        let ok = run(
            "sh".into(),
            vec!["-c".into(), "echo added; echo warn >&2".into()],
            &dir,
        );
        assert!(ok.succeeded(), "{ok:?}");
        assert_eq!(ok.output, "added\nwarn\n");
        let flood = run("sh".into(), vec!["-c".into(), "yes flood".into()], &dir);
        assert!(flood.truncated && !flood.succeeded());
        assert!(flood.output.len() <= CLIENT_OUTPUT && flood.output.starts_with("flood\n"));
        let missing = run("/nonexistent/claude".into(), Vec::new(), &dir);
        assert_eq!(missing.exit_code, None);
        assert!(missing
            .output
            .starts_with("could not start /nonexistent/claude"));
        let refused = call("cursor", None, None, Path::new("rho"), Path::new("f"));
        assert!(matches!(
            refused,
            Err(AccessError::Invalid { field: "agent", .. })
        ));
    }
}
