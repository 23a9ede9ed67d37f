//! `rho --mcp FILE`: the stdio MCP adapter serving one project grant to an external Agent with
//! four tools (`rho_index`, `rho_resolve`, `rho_call`, `rho_read`). stdout carries only protocol
//! frames; logs go to stderr; it exits on stdin EOF. See `docs/mcp-adapter.md`.

pub mod call;
pub mod connection;
pub mod core;
pub mod fsio;
pub mod intents;
pub mod knowledge;
pub mod limits;
pub mod read;
pub mod refusal;
pub mod retained;
pub mod select;
pub mod server;
pub mod service;
pub mod store;
pub mod tools;

use std::collections::HashMap;
use std::path::Path;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use rmcp::ServiceExt;

pub use self::core::Adapter;

/// Why the adapter cannot start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The connection file.
    #[error(transparent)]
    Connection(#[from] connection::ConnectionError),
    /// An environment limit.
    #[error("{0}")]
    Limit(#[from] limits::LimitError),
    /// The store next to the connection file.
    #[error("cannot open the adapter's store next to the connection file: {0}")]
    Store(std::io::Error),
    /// The HTTP client.
    #[error("cannot build the HTTP client: {0}")]
    Http(#[from] reqwest::Error),
}

/// Opens the adapter for a connection file (reads it, opens its store; calls nothing).
pub fn open(file: &Path, limits: limits::Limits) -> Result<Adapter, StartError> {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let conn = connection::read(&file)?;
    let store = store::Store::open(&file, &conn.identity(), &limits).map_err(StartError::Store)?;
    let service = service::ServiceClient::new(file, conn)?;
    Ok(Adapter {
        service,
        store,
        limits,
        validators: Mutex::new(HashMap::new()),
    })
}

/// Serves MCP on stdin/stdout until stdin closes. Exit 1 when the connection file or store
/// cannot be used (the reason on stderr), 0 after EOF.
pub fn run(file: &Path) -> ExitCode {
    let started = limits::Limits::from_env()
        .map_err(StartError::from)
        .and_then(|l| open(file, l));
    let adapter = match started {
        Ok(a) => Arc::new(a),
        Err(e) => {
            eprintln!("rho --mcp: {e}");
            return ExitCode::from(1);
        }
    };
    let rt = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("rho --mcp: cannot start the runtime: {e}");
            return ExitCode::from(1);
        }
    };
    let code = rt.block_on(async move {
        let handler = server::Handler::new(adapter);
        match handler.serve(rmcp::transport::io::stdio()).await {
            Ok(running) => {
                let reason = running.waiting().await;
                tracing::debug!(target: "rho::mcp::adapter", ?reason, "stdio closed");
                ExitCode::SUCCESS
            }
            Err(e) => {
                // A client that closes stdin before initializing is an ordinary end.
                tracing::info!(target: "rho::mcp::adapter", error = %e, "session ended before it began");
                ExitCode::SUCCESS
            }
        }
    });
    rt.shutdown_timeout(std::time::Duration::from_millis(200));
    code
}
