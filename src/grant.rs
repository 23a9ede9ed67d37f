//! `rho --grant CONNECTION_FILE (--project-id ID | --project FOLDER) [--session NAME] [--expires DURATION]`: grant one project to a named Agent through the running service.
//!
//! Stdout carries only the JSON reply (never a token); exit 1 for a stopped service, an unknown
//! project or a bad connection file; exit 2 for usage.

use crate::client::call;
use crate::start::connection::Connection;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// The usage text of `rho --grant`.
pub(crate) const USAGE: &str = "usage: rho --grant CONNECTION_FILE (--project-id ID | --project FOLDER) [--session NAME] [--expires DURATION]";

/// What `rho --grant` was given.
pub(crate) struct GrantArgs<'a> {
    pub(crate) connection: &'a Path,
    pub(crate) project_id: Option<&'a str>,
    pub(crate) project: Option<&'a Path>,
    pub(crate) session: Option<&'a str>,
    pub(crate) expires: Option<&'a str>,
}

fn usage(problem: &str) -> ExitCode {
    eprintln!("rho: {problem}\n{USAGE}");
    ExitCode::from(2)
}

/// Quotes `s` for a POSIX shell when it needs it.
fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-=:@+,".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

pub(crate) fn run(args: &GrantArgs<'_>) -> ExitCode {
    let project = match (args.project_id, args.project) {
        (Some(id), None) => serde_json::json!({"projectId": id}),
        (None, Some(folder)) => serde_json::json!({"folder": folder.to_string_lossy()}),
        _ => return usage("select the project with exactly one of --project-id and --project"),
    };
    let expires_at = match args.expires {
        None => None,
        Some(text) => match humantime::parse_duration(text) {
            Ok(d) if !d.is_zero() => {
                let at = i64::try_from(d.as_millis())
                    .ok()
                    .and_then(|d| rho_plumbing::time::now_ms().checked_add(d))
                    .and_then(rho_plumbing::time::rfc3339_ms_opt);
                let Some(at) = at else {
                    return usage("--expires is too far away");
                };
                Some(at)
            }
            _ => return usage("--expires takes a duration such as 7d, 12h or 30m"),
        },
    };
    let conn = match Connection::read(args.connection) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let mut body = project;
    body["session"] = args.session.unwrap_or("claude-code").into();
    if let Some(t) = expires_at {
        body["expiresAt"] = t.into();
    }
    let value = match call(&conn.url, &conn.token, "session.grant", &body) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let mcp = &value["mcp"];
    let command = mcp["command"].as_str().unwrap_or_default();
    let file = mcp["args"][1].as_str().unwrap_or_default();
    let claude = format!(
        "claude mcp add -s local rho -- {} --mcp {}",
        shell_quote(command),
        shell_quote(file)
    );
    let out = serde_json::json!({
        "projectId": value["projectId"],
        "session": value["session"],
        "expiresAt": value["expiresAt"],
        "methods": value["methods"],
        "mcp": mcp,
        "claude": claude,
    });
    let mut stdout = std::io::stdout().lock();
    let _ = writeln!(stdout, "{out}");
    let _ = writeln!(
        std::io::stderr(),
        "granted {} methods to agent:{} until {}; the connection file {} is a credential: keep its contents out of prompts and projects",
        value["methods"].as_array().map_or(0, Vec::len),
        value["session"].as_str().unwrap_or_default(),
        value["expiresAt"].as_str().unwrap_or_default(),
        file
    );
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        assert_eq!(shell_quote("/usr/bin/rho"), "/usr/bin/rho");
        assert_eq!(shell_quote("/a b/it's"), "'/a b/it'\\''s'");
    }
}
