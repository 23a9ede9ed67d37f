//! A command record as the wire shows it (times RFC 3339).

use super::contract::CommandView;
use super::entity::{CommandRecord, CommandState};
use rho_plumbing::time::rfc3339_ms;

/// The wire name of a state.
pub fn state(s: CommandState) -> &'static str {
    match s {
        CommandState::Starting => "starting",
        CommandState::Running => "running",
        CommandState::Continuing => "continuing",
        CommandState::Exited => "exited",
        CommandState::Unknown => "unknown",
    }
}

pub fn view(c: &CommandRecord) -> CommandView {
    let ended = c.ended.as_ref();
    CommandView {
        command_id: c.command_id.clone(),
        change_id: c.change_id.clone(),
        command: c.text.clone(),
        cwd: c.cwd.clone(),
        by: c.by.clone(),
        accepted_at: rfc3339_ms(c.accepted_at_ms),
        state: state(c.state).into(),
        pid: c.started.as_ref().map(|s| s.pid),
        started_at: c.started.as_ref().map(|s| rfc3339_ms(s.started_at_ms)),
        ended_at: ended.map(|e| rfc3339_ms(e.ended_at_ms)),
        exit_code: ended.and_then(|e| e.exit_code),
        signal: ended.and_then(|e| e.signal),
        stopped_by: c.stop.as_ref().map(|(by, _)| by.clone()),
        stop_requested_at: c.stop.as_ref().map(|(_, at)| rfc3339_ms(*at)),
        stdout_bytes: ended.map(|e| e.stdout_bytes),
        stderr_bytes: ended.map(|e| e.stderr_bytes),
        omitted_bytes: ended.map(|e| e.omitted_bytes),
        note: c
            .note
            .clone()
            .or_else(|| ended.and_then(|e| e.error.clone())),
    }
}
