//! `rho --pair CONNECTION_FILE [--project FOLDER]`: print a one-time browser link minted by the running service.

use crate::client::{call, CallError};
use crate::start::connection::Connection;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

pub(crate) fn run(connection_file: &Path, folder: Option<&Path>) -> ExitCode {
    let conn = match Connection::read(connection_file) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("rho: {e}");
            return ExitCode::from(1);
        }
    };
    let body = serde_json::json!({"folder": folder.map(|f| f.to_string_lossy().into_owned())});
    match call(&conn.url, &conn.token, "pairing.mint", &body) {
        Ok(value) => {
            // The link is a credential: stdout only, never a log.
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{}", value["url"].as_str().unwrap_or_default());
            let _ = writeln!(
                std::io::stderr(),
                "one-time link: single use, expires at {}",
                value["expiresAt"].as_str().unwrap_or("?")
            );
            ExitCode::SUCCESS
        }
        Err(e @ CallError::NotRunning(_))
        | Err(e @ CallError::Refused(_))
        | Err(e @ CallError::Protocol(_)) => {
            eprintln!("rho: {e}");
            ExitCode::from(1)
        }
    }
}
